package memory

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gowebpki/jcs"
)

// Sheet is what an agent should currently believe: the surviving claims
// in final rank order, with what each superseded, outranked or stands in
// doubt with, the warnings of the read, its counts and the retrieval
// trace. Its JSON (Canonical) holds no wall-clock field, so the same
// journal snapshot, query, reader and policy give the same bytes.
type Sheet struct {
	AsOf     int64        `json:"as_of"`
	Reader   *SheetReader `json:"reader,omitempty"`
	Policy   Policy       `json:"policy"`
	Claims   []Claim      `json:"claims"`
	Warnings []Warning    `json:"warnings"`
	Counts   Counts       `json:"counts"`
	Trace    []TraceEntry `json:"trace"`
}

// SheetReader is the part of the reader a sheet records: who read, and
// for what (the reader's tags are the principal's, and stay out).
type SheetReader struct {
	Agent   string `json:"agent"`
	Purpose string `json:"purpose,omitempty"`
}

// Claim is one surviving belief.
type Claim struct {
	// Rank is the claim's place on the sheet, from 1, in final order.
	Rank    int      `json:"rank"`
	Key     string   `json:"key"`
	Agent   string   `json:"agent"`
	Kind    Kind     `json:"kind"`
	Text    string   `json:"text"`
	Subject string   `json:"subject,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Class   string   `json:"class,omitempty"`
	Stated  bool     `json:"stated"`
	Time    int64    `json:"time"`
	Valid   Interval `json:"valid"`
	// Score is the declared rank score at the sheet's as_of.
	Score float64 `json:"score"`
	// Staleness is the decayed relevance at as_of, null when the record
	// declares none; Stale says it is below the policy's threshold.
	Staleness *float64 `json:"staleness"`
	Stale     bool     `json:"stale"`
	// Confirmations counts the live confirm records of this claim.
	Confirmations int `json:"confirmations"`
	// Supersedes lists the keys this claim replaced, collapsed onto it.
	Supersedes []string `json:"supersedes,omitempty"`
	// Outranked lists competing corrections the policy's prefer ranked
	// below this claim.
	Outranked []string `json:"outranked,omitempty"`
	// DisjunctWith lists the claims that are alternatives of the same
	// question as this one (a shared class id, or corrections tied under
	// the policy): explicit uncertainty, never collapsed.
	DisjunctWith []string    `json:"disjunct_with,omitempty"`
	Provenance   *Provenance `json:"provenance,omitempty"`
	// Check is recall's verdict on a claim carrying provenance (Recall);
	// nil on a sheet from Read.
	Check *Check `json:"check,omitempty"`
	// Recorded is the record's wall-clock append time; it is not part of
	// the sheet's JSON.
	Recorded time.Time `json:"-"`
}

// Counts are the sizes of a read, so that a short or thin sheet says why.
type Counts struct {
	MaxItems       int `json:"max_items"`
	Candidates     int `json:"candidates"`     // retrieved candidates the reader may see
	GateRejected   int `json:"gate_rejected"`  // retrieved candidates the reader may not see
	BackfillPulls  int `json:"backfill_pulls"` // retrievals after the first
	Selected       int `json:"selected"`       // candidates handed to resolution
	Retracted      int `json:"retracted"`      // selected records dropped by a retract
	Superseded     int `json:"superseded"`     // selected records collapsed onto a winner
	Outranked      int `json:"outranked"`      // selected records that lost a competition
	Corrupt        int `json:"corrupt"`        // selected records that are corrupt evidence
	Contradictions int `json:"contradictions"` // ties left unresolved
	Claims         int `json:"claims"`         // claims on the sheet
}

// TraceEntry is one selected candidate as retrieval ranked it: its key,
// its place among the candidates the reader may see (from 1), its score
// and where it came from ("retrieval", or "backfill-N" for the Nth
// back-fill pull). Candidates the gate rejected are not traced: their
// keys are not the reader's to see.
type TraceEntry struct {
	Key    string  `json:"key"`
	Rank   int     `json:"rank"`
	Score  float64 `json:"score"`
	Source string  `json:"source"`
}

// Canonical is the sheet as RFC 8785 canonical JSON: sorted keys, no
// insignificant space, numbers in their shortest form, wall-clock fields
// left out.
func (s *Sheet) Canonical() ([]byte, error) {
	c := *s
	if c.Claims == nil {
		c.Claims = []Claim{}
	}
	if c.Warnings == nil {
		c.Warnings = []Warning{}
	}
	if c.Trace == nil {
		c.Trace = []TraceEntry{}
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("encode sheet: %w", err)
	}
	out, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("canonicalise sheet: %w", err)
	}
	return out, nil
}
