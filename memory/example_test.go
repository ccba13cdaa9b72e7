package memory_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memstore"
)

// printSheet writes a sheet as the README shows it.
func printSheet(s *memory.Sheet) {
	for _, c := range s.Claims {
		fmt.Printf("%d. %s %s: %q\n", c.Rank, c.Key, c.Kind, c.Text)
		var notes []string
		if c.Staleness != nil {
			notes = append(notes, fmt.Sprintf("staleness %.3f", *c.Staleness))
		} else {
			notes = append(notes, "staleness null")
		}
		if c.Stale {
			notes = append(notes, "STALE")
		}
		if c.Confirmations > 0 {
			notes = append(notes, fmt.Sprintf("confirmations %d", c.Confirmations))
		}
		if len(c.Supersedes) > 0 {
			notes = append(notes, "supersedes "+strings.Join(c.Supersedes, ","))
		}
		if len(c.Outranked) > 0 {
			notes = append(notes, "outranked "+strings.Join(c.Outranked, ","))
		}
		if len(c.DisjunctWith) > 0 {
			notes = append(notes, "disjunct_with "+strings.Join(c.DisjunctWith, ","))
		}
		if c.Provenance != nil {
			notes = append(notes, "from "+strings.Join(c.Provenance.ResultIDs, ",")+" at "+c.Provenance.DataVersion)
		}
		fmt.Printf("   %s\n", strings.Join(notes, "; "))
	}
	for _, w := range s.Warnings {
		fmt.Printf("warning %s: %s\n", w.Code, w.Message)
	}
	n := s.Counts
	fmt.Printf("counts: candidates %d, gate_rejected %d, selected %d, retracted %d, superseded %d, corrupt %d, contradictions %d, claims %d\n",
		n.Candidates, n.GateRejected, n.Selected, n.Retracted, n.Superseded, n.Corrupt, n.Contradictions, n.Claims)
}

// The worked example of the README: a journal snapshot about one product,
// read by the stock agent at logical time 500.
func Example() {
	f, err := os.Open("testdata/journal.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	entries, err := memory.ReadJournal(f)
	if err != nil {
		panic(err)
	}
	st, err := memstore.Load(entries)
	if err != nil {
		panic(err)
	}
	policy, warns := memory.ParsePolicy([]byte(`{"prefer": "self-stated", "staleness_threshold": 0.25}`))
	if len(warns) > 0 {
		panic(warns)
	}
	reader := &memory.Reader{Agent: "stock-bot", Purpose: "replenishment"}
	q := memory.Query{Cues: memory.Cues{Tags: []string{"pr-007"}}, AsOf: 500, MaxItems: 10}
	sheet, err := memory.Read(context.Background(), st, reader, q, policy)
	if err != nil {
		panic(err)
	}
	printSheet(sheet)
	// Output:
	// 1. m-011 supersede: "pr-007 moved to aisle B1 at st-003"
	//    staleness 0.800; supersedes m-010; disjunct_with m-012
	// 2. m-012 supersede: "pr-007 moved to aisle C4 at st-003"
	//    staleness 0.800; supersedes m-010; disjunct_with m-011
	// 3. m-002 supersede: "pr-007 was restocked at st-003 at 10:00"
	//    staleness 0.701; confirmations 1; supersedes m-001
	// 4. m-008 claim: "pr-007 is restocked on Thursdays"
	//    staleness 0.500; disjunct_with m-007
	// 5. m-007 claim: "pr-007 is restocked on Mondays"
	//    staleness 0.500; disjunct_with m-008
	// 6. m-004 claim: "pr-007 sells about 12 units a day at st-003"
	//    staleness 0.161; STALE; from r-0002 at v41
	// warning corrupt_record: record m-013 is a supersede without a target; not surfaced
	// warning unresolved_contradiction: corrections of m-010 are tied under prefer self-stated: m-011, m-012; none is chosen
	// counts: candidates 10, gate_rejected 1, selected 10, retracted 1, superseded 2, corrupt 1, contradictions 1, claims 6
}

// A policy document is read leniently: what cannot be used is a warning,
// and the default stands for it.
func ExampleParsePolicy() {
	p, warns := memory.ParsePolicy([]byte(`{"prefer": "loudest", "staleness_threshold": 0.1, "max_backfil_pulls": 3}`))
	fmt.Printf("prefer %s, staleness_threshold %v, gate_overfetch_multiplier %d, max_backfill_pulls %d\n",
		p.Prefer, p.StalenessThreshold, p.GateOverfetchMultiplier, p.MaxBackfillPulls)
	for _, w := range warns {
		fmt.Printf("%s: %s\n", w.Code, w.Message)
	}
	// Output:
	// prefer self-stated, staleness_threshold 0.1, gate_overfetch_multiplier 2, max_backfill_pulls 2
	// policy_invalid_value: policy key prefer: not one of self-stated, confirmed, recent; the default is used
	// policy_unknown_key: unknown policy key ignored (nearest valid key: max_backfill_pulls)
}

// Resolution is a pure function: two corrections of one claim compete,
// and the policy's prefer picks one.
func ExampleResolve() {
	claim := memory.Record{Key: "a", Agent: "bot", Kind: memory.KindClaim, Text: "the door code is 1234", Time: 1}
	older := memory.Record{Key: "b", Agent: "bot", Kind: memory.KindSupersede, Target: "a", Text: "the door code is 4321", Stated: true, Time: 2}
	newer := memory.Record{Key: "c", Agent: "bot", Kind: memory.KindSupersede, Target: "a", Text: "the door code is 9999", Time: 3}
	in := memory.Input{AsOf: 10, Selected: []memory.Record{claim}, Chains: map[string][]memory.Record{"a": {newer, older}}}
	for _, prefer := range []memory.Prefer{memory.PreferSelfStated, memory.PreferRecent} {
		p := memory.DefaultPolicy()
		p.Prefer = prefer
		sheet := memory.Resolve(in, p)
		c := sheet.Claims[0]
		fmt.Printf("%s: %s %q supersedes %v, outranked %v\n", prefer, c.Key, c.Text, c.Supersedes, c.Outranked)
	}
	// Output:
	// self-stated: b "the door code is 4321" supersedes [a], outranked [c]
	// recent: c "the door code is 9999" supersedes [a], outranked [b]
}

// A record scoped to an agent is that agent's alone; a tagged one needs
// the reader's tags.
func ExampleVisible() {
	private := memory.Visibility{Agent: "pricing-bot"}
	finance := memory.Visibility{Tags: []string{"finance", "eu"}}
	for _, r := range []*memory.Reader{
		{Agent: "pricing-bot"},
		{Agent: "stock-bot", Tags: []string{"finance"}},
		{Agent: "stock-bot", Tags: []string{"finance"}, Match: memory.MatchAny},
	} {
		a, _ := memory.Visible(private, r)
		b, _ := memory.Visible(finance, r)
		fmt.Printf("%s %v: private %v, finance %v\n", r.Agent, r.Tags, a, b)
	}
	_, err := memory.Visible(private, nil)
	fmt.Println(err)
	// Output:
	// pricing-bot []: private true, finance false
	// stock-bot [finance]: private false, finance false
	// stock-bot [finance]: private false, finance true
	// read memory: reader: required
}
