package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/pipeline"
)

// approval is one line of a grants file: what `provenant approve`
// writes and a serving process applies. A line with only Applied set is
// the serving process's mark that it applied that grant: a grant is
// applied once, whichever process reads the file next and however often
// it is restarted.
type approval struct {
	GrantID      string   `json:"grant_id,omitempty"`
	Session      string   `json:"session,omitempty"`
	Tools        []string `json:"tools,omitempty"`
	Tier         string   `json:"tier,omitempty"`
	MaxQuestions int64    `json:"max_questions,omitempty"`
	MaxAge       int64    `json:"max_age,omitempty"`
	Approver     string   `json:"approver,omitempty"`
	Applied      string   `json:"applied,omitempty"`
	// Revoke names a grant of Session that Approver ends before it
	// lapses (provenant approve --revoke).
	Revoke string `json:"revoke,omitempty"`
	// Deny: Approver refuses Session's pending elevation of Tools to
	// Tier (provenant approve --deny); GrantID names the decision.
	Deny bool `json:"deny,omitempty"`
}

// runApprove is `provenant approve`: the local operator's approval of an
// elevation. It appends the grant to the grants file a serving process
// (ask, serve, mcp with --grants FILE) applies before its next question;
// the operator at the terminal is the authenticated approver.
func runApprove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("approve", "approve --grants FILE --session S --tools a,b --tier L3 --questions N --approver NAME",
		"provenant approve --grants grants.jsonl --session local --tools open_restock_task --tier L3 --questions 3 --approver alice", stderr)
	grants := fs.String("grants", "", "the grants `FILE` a serving process reads (--grants on ask, serve and mcp; created 0600 if missing) (required)")
	session := fs.String("session", pipeline.DefaultSession, "the `SESSION` to raise: local for the CLI and an unauthenticated server, a principal's name for its requests")
	tools := fs.String("tools", "", "the tools to grant, by name, comma-separated (`a,b`; never a pattern) (required)")
	tier := fs.String("tier", "L3", "the `TIER` to grant: L2 or L3")
	questions := fs.Int64("questions", 1, "the grant lapses after `N` questions of the session")
	age := fs.Int64("age", 1000, "or after `A` units of logical time (one a question, across sessions), whichever comes first")
	approver := fs.String("approver", "", "the approving operator's `NAME` (letters, digits, _.:-) (required)")
	revoke := fs.String("revoke", "", "instead of granting, end the live grant `GRANT_ID` of --session before it lapses")
	deny := fs.Bool("deny", false, "instead of granting, refuse --session's pending elevation of --tools to --tier (a decision record, the session unchanged)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usagef("unexpected argument (the file goes after its flag)")
	case *grants == "":
		return usagef("approve: --grants FILE is required")
	case *deny && *revoke != "":
		return usagef("approve: --deny and --revoke: choose one")
	}
	if *revoke != "" {
		r := approval{Revoke: *revoke, Session: *session, Approver: *approver}
		if !pipelineName(r.Revoke) || !pipelineName(r.Session) || !pipelineName(r.Approver) {
			return usagef("approve: --revoke, --session and --approver: letters, digits and _.:-, at most 128")
		}
		if err := appendLine(*grants, r); err != nil {
			return err
		}
		_, err := fmt.Fprintf(stdout, "revoked %s of session %s by %s\n", r.Revoke, r.Session, r.Approver)
		return err
	}
	a := approval{Session: *session, Tier: *tier, MaxQuestions: *questions, MaxAge: *age, Approver: *approver}
	for _, t := range strings.Split(*tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			a.Tools = append(a.Tools, t)
		}
	}
	a.GrantID = newDecisionID("g-")
	if *deny {
		a.Deny, a.GrantID = true, newDecisionID("d-")
	}
	if err := a.check(); err != nil {
		return usagef("approve: %v", err)
	}
	if err := appendLine(*grants, a); err != nil {
		return err
	}
	if a.Deny {
		_, err := fmt.Fprintf(stdout, "denied %s: %s at %s for session %s by %s\n", a.GrantID, strings.Join(a.Tools, ","), a.Tier, a.Session, a.Approver)
		return err
	}
	_, err := fmt.Fprintf(stdout, "approved %s: %s at %s for session %s by %s, for %d question(s) or %d units of logical time\n",
		a.GrantID, strings.Join(a.Tools, ","), a.Tier, a.Session, a.Approver, a.MaxQuestions, a.MaxAge)
	return err
}

// newDecisionID returns prefix and 64 random bits in hex: the id of a
// grant ("g-") or a denial ("d-").
func newDecisionID(prefix string) string {
	var b [8]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// appendLine appends one line to the grants file (created 0600) and
// syncs it.
func appendLine(path string, a approval) error {
	line, err := json.Marshal(a)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open grants: %w", err)
	}
	defer f.Close()
	if err := checkGrants(f); err != nil {
		return fmt.Errorf("open grants: %s: %w", path, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write grant: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync grants: %w", err)
	}
	return nil
}

// checkGrants reads the grants file f from its start and refuses one
// that holds a line no approve wrote (a data file, an event log or a
// register given by mistake: a grant appended to it was never applied,
// and the file was changed), or whose last line has no newline (a grant
// appended to it would join that line, and be skipped).
func checkGrants(f *os.File) error {
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			if len(line) > 0 {
				return fmt.Errorf("not a grants file: line %d has no newline", n)
			}
			return nil
		}
		if err != nil {
			return err
		}
		var a approval
		if strictjson.Decode(line, &a, nil) != nil {
			return fmt.Errorf("not a grants file: line %d is no grant, denial, revocation or applied mark", n)
		}
	}
}

// check holds an approval to the form a gate accepts, naming the field
// at fault and never repeating a value.
func (a approval) check() error {
	tier, err := autonomy.ParseTier(a.Tier)
	switch {
	case err != nil || tier == autonomy.L1:
		return errors.New("--tier: want L2 or L3")
	case len(a.Tools) == 0:
		return errors.New("--tools: name at least one tool")
	case !a.Deny && (a.MaxQuestions < 1 || a.MaxQuestions > 100):
		return errors.New("--questions: want 1 to 100")
	case !a.Deny && (a.MaxAge < 1 || a.MaxAge > 1_000_000):
		return errors.New("--age: want 1 to 1000000")
	}
	for _, t := range a.Tools {
		if strings.ContainsAny(t, "*?[]{}") {
			return fmt.Errorf("--tools: %w: name tools one by one", autonomy.ErrWildcard)
		}
		if !toolName(t) {
			return errors.New("--tools: a tool name is lowercase letters, digits and _")
		}
	}
	if !pipelineName(a.Session) {
		return errors.New("--session: letters, digits and _.:-, at most 128")
	}
	if !pipelineName(a.Approver) {
		return errors.New("--approver: letters, digits and _.:-, at most 128")
	}
	return nil
}

func toolName(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

func pipelineName(s string) bool { return s != "" && pipeline.SessionOf(s) == s }

// autoFlags are the autonomy flags of the commands that answer
// questions: the grants file the approve command writes, and --writes
// for the demo store. Writes and approvals are recorded in the register
// the audit flags open (--register FILE, --state-db).
type autoFlags struct {
	grantsPath string
	writes     bool

	// Set by open: main's Authority (handed only to the approving
	// layers: the grants inbox here and the HTTP approvals endpoint),
	// and the inbox.
	auth  *autonomy.Authority
	inbox *grantInbox
	// ledger, set by govFlags.open when a state database is open,
	// keeps the gates' live grants and clock there: shared by every
	// process on it, kept across restarts. nil: in memory.
	ledger autonomy.Ledger
}

func (f *autoFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.grantsPath, "grants", "", "apply the grants `FILE` provenant approve writes, before each question (the local operator's approvals)")
	fs.BoolVar(&f.writes, "writes", false, "serve the store file's write tool (open_restock_task), as a catalog's `writes: {enabled: true}` does; each write still needs an L3 grant")
}

// open creates the Authority.
func (f *autoFlags) open() { f.auth = autonomy.NewAuthority() }

// apply puts the gate store (closed over the Authority) and --writes in
// an engine's options; the engine records writes and approvals in
// opts.Register.
func (f *autoFlags) apply(opts *engine.Options, logger *slog.Logger) {
	a := &engine.Autonomy{Writes: f.writes}
	auth, path, ledger := f.auth, f.grantsPath, f.ledger
	a.Gates = func(tools []autonomy.Tool) (autonomy.Store, error) {
		var (
			s   autonomy.Store
			err error
		)
		if ledger != nil {
			s, err = autonomy.NewLedgerStore(ledger, tools, &autonomy.GateOptions{Authority: auth}, func(err error) {
				if logger != nil {
					logger.Error("autonomy gate store: refused what it could not read", slog.String("error", err.Error()))
				}
			})
		} else {
			s, err = autonomy.NewSessions(tools, &autonomy.GateOptions{Authority: auth})
		}
		if err != nil || path == "" {
			return s, err
		}
		f.inbox = &grantInbox{Store: s, auth: auth, path: path, logger: logger}
		return f.inbox, nil
	}
	opts.Autonomy = a
}

// serving tells the inbox which pipeline records its approvals.
func (f *autoFlags) serving(p *pipeline.Pipeline) {
	if f.inbox != nil {
		f.inbox.mu.Lock()
		f.inbox.p = p
		f.inbox.mu.Unlock()
	}
}

// grantInbox is the gate store of a process with --grants: before each
// question (Tick) it applies the approvals appended to the grants file
// since it last looked, on the word of the approver each names (the
// local operator, who alone can write the file), and has the pipeline
// record them.
type grantInbox struct {
	autonomy.Store
	auth   *autonomy.Authority
	path   string
	logger *slog.Logger

	mu      sync.Mutex
	offset  int64
	applied map[string]bool // grant ids marked applied in the file
	p       *pipeline.Pipeline
}

// Tick applies new approvals, then advances the clock under the
// request's ctx. A request whose ctx is done reads no approval (the next
// one does); once read, an approval is applied detached from the request
// (still capped by the gate store's own timeout): it is marked applied
// in the file before it is granted, so it must not be cut in between.
func (in *grantInbox) Tick(ctx context.Context) (int64, error) {
	if ctx.Err() == nil {
		in.poll(context.WithoutCancel(ctx))
	}
	return in.Store.Tick(ctx)
}

// Begin applies new approvals, as Tick does, then ticks the clock and
// begins the session's question under the request's ctx.
func (in *grantInbox) Begin(ctx context.Context, session string) (autonomy.Question, error) {
	if ctx.Err() == nil {
		in.poll(context.WithoutCancel(ctx))
	}
	return in.Store.Begin(ctx, session)
}

// poll reads the complete lines appended since the last poll and applies
// each approval not marked applied, marking it; a line that does not hold
// one is logged and skipped.
func (in *grantInbox) poll(ctx context.Context) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.applied == nil {
		in.applied = map[string]bool{}
	}
	f, err := os.OpenFile(in.path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		in.logger.Warn("read grants", slog.String("error", err.Error()))
		return
	}
	defer f.Close()
	if _, err := f.Seek(in.offset, io.SeekStart); err != nil {
		return
	}
	// Read every new complete line first: a grant's mark may follow it.
	var grants []approval
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // a line without its newline is still being written
		}
		in.offset += int64(len(line))
		var a approval
		if err := strictjson.Decode(line, &a, nil); err != nil {
			in.logger.Warn("grants: skipped a line that is not an approval", slog.Int64("offset", in.offset-int64(len(line))))
			continue
		}
		if a.Applied != "" {
			in.applied[a.Applied] = true
			continue
		}
		grants = append(grants, a)
	}
	for _, a := range grants {
		switch {
		case a.Revoke != "":
			in.revoke(ctx, a)
		case a.Deny:
			in.deny(ctx, a)
		case !in.applied[a.GrantID]:
			in.apply(ctx, f, a)
		}
	}
}

// revoke ends a live grant on the word of the approver the line names
// (a grant no longer live, or revoked before a restart, is logged).
func (in *grantInbox) revoke(ctx context.Context, a approval) {
	ap, err := in.auth.Approver(a.Approver)
	if err != nil {
		in.logger.Warn("grants: skipped a revocation", slog.String("error", err.Error()))
		return
	}
	g, err := in.Store.Gate(a.Session)
	if err != nil {
		in.logger.Warn("grants: skipped a revocation", slog.String("error", err.Error()))
		return
	}
	exp, err := g.Revoke(ctx, ap, a.Revoke)
	if err != nil {
		in.logger.Info("grants: nothing to revoke", slog.String("grant_id", a.Revoke))
		return
	}
	now, _ := in.Store.Now(ctx)
	if in.p != nil {
		if err := in.p.RecordRevocation(ctx, pipeline.Revocation{Expired: exp, Approver: a.Approver, Now: now}); err != nil {
			in.logger.Error("grants: record revocation", slog.String("grant_id", a.Revoke), slog.String("error", err.Error()))
		}
	}
	in.logger.Info("grant revoked", slog.String("grant_id", a.Revoke), slog.String("approver", a.Approver))
}

// deny records the refusal of a pending elevation on the word of the
// approver the line names. A denial changes no gate, so it needs no
// mark: a process restarted on the file records it again only if the
// elevation is still pending (a refusal of the same request, twice).
func (in *grantInbox) deny(ctx context.Context, a approval) {
	if err := a.check(); err != nil || a.GrantID == "" {
		in.logger.Warn("grants: skipped a denial", slog.String("error", fmt.Sprint(err)))
		return
	}
	dec, now, err := denyElevation(ctx, in.auth, in.Store, a)
	if err != nil {
		in.logger.Info("grants: nothing to deny", slog.String("decision", a.GrantID), slog.String("error", err.Error()))
		return
	}
	if in.p != nil {
		if err := in.p.RecordApproval(ctx, pipeline.Approval{Decided: dec, Now: now}); err != nil {
			in.logger.Error("grants: record denial", slog.String("decision", a.GrantID), slog.String("error", err.Error()))
		}
	}
	in.logger.Info("elevation denied", slog.String("decision", a.GrantID), slog.String("session", a.Session), slog.String("approver", a.Approver))
}

// denyElevation has the approver a names deny a's pending elevation on
// the session's gate in store: the elevation.decided payload (decision
// denied) and the logical time.
func denyElevation(ctx context.Context, auth *autonomy.Authority, store autonomy.Store, a approval) (eventlog.ElevationDecided, int64, error) {
	ap, err := auth.Approver(a.Approver)
	if err != nil {
		return eventlog.ElevationDecided{}, 0, err
	}
	g, err := store.Gate(a.Session)
	if err != nil {
		return eventlog.ElevationDecided{}, 0, err
	}
	now, err := store.Now(ctx)
	if err != nil {
		return eventlog.ElevationDecided{}, 0, err
	}
	tier, _ := autonomy.ParseTier(a.Tier)
	dec, err := g.Deny(ctx, ap, autonomy.GrantRequest{GrantID: a.GrantID, Tools: a.Tools, Tier: tier, DecisionID: "dec-" + a.GrantID})
	return dec, now, err
}

// apply grants one approval and marks it applied in the file (the mark
// comes back on the next poll, already known).
func (in *grantInbox) apply(ctx context.Context, f *os.File, a approval) {
	if err := a.check(); err != nil || a.GrantID == "" {
		in.logger.Warn("grants: skipped an approval", slog.String("error", fmt.Sprint(err)))
		return
	}
	mark, _ := json.Marshal(approval{Applied: a.GrantID})
	if _, err := f.Write(append(mark, '\n')); err != nil || f.Sync() != nil {
		// Unmarked, it would be applied again after a restart: not now.
		in.logger.Error("grants: cannot mark an approval applied; not applied", slog.String("grant_id", a.GrantID))
		return
	}
	in.applied[a.GrantID] = true
	tier, _ := autonomy.ParseTier(a.Tier)
	dec, now, err := in.auth.Grant(ctx, in.Store, a.Approver, a.Session, autonomy.GrantRequest{
		GrantID: a.GrantID, Tools: a.Tools, Tier: tier, MaxQuestions: a.MaxQuestions, MaxAge: a.MaxAge,
		DecisionID: "dec-" + a.GrantID,
	})
	if err != nil {
		in.logger.Warn("grants: refused an approval", slog.String("grant_id", a.GrantID), slog.String("error", err.Error()))
		return
	}
	if in.p != nil {
		if err := in.p.RecordApproval(ctx, pipeline.Approval{Decided: dec, Now: now}); err != nil {
			in.logger.Error("grants: record approval", slog.String("grant_id", a.GrantID), slog.String("error", err.Error()))
		}
	}
	in.logger.Info("grant applied", slog.String("grant_id", a.GrantID), slog.String("session", a.Session), slog.String("approver", a.Approver))
}

// httpApprovals is the HTTP approvals endpoint's Approvals: main's
// Authority, the pipeline whose gates it raises and records the
// approvals in. httpapi calls it only for an authenticated approver.
type httpApprovals struct {
	auth *autonomy.Authority
	p    *pipeline.Pipeline
}

var _ httpapi.Approvals = httpApprovals{}

// Approve grants req on the word of approver, the authenticated
// principal's name.
func (h httpApprovals) Approve(ctx context.Context, approver string, req httpapi.ApprovalRequest) (eventlog.ElevationDecided, error) {
	if req.Age == 0 {
		req.Age = 1000
	}
	a := approval{Session: req.Session, Tools: req.Tools, Tier: req.Tier, MaxQuestions: req.Questions, MaxAge: req.Age, Approver: approver}
	if err := a.checkHTTP("approve"); err != nil {
		return eventlog.ElevationDecided{}, err
	}
	if h.p.Gates() == nil {
		return eventlog.ElevationDecided{}, fmt.Errorf("approve: %w: no tool above L1 to grant", autonomy.ErrGrant)
	}
	tier, _ := autonomy.ParseTier(a.Tier)
	id := newDecisionID("g-")
	dec, now, err := h.auth.Grant(ctx, h.p.Gates(), approver, a.Session, autonomy.GrantRequest{
		GrantID: id, Tools: a.Tools, Tier: tier, MaxQuestions: a.MaxQuestions, MaxAge: a.MaxAge, DecisionID: "dec-" + id,
	})
	return h.record(ctx, dec, now, err)
}

// checkHTTP is check for a request body: a wildcard stays ErrWildcard,
// any other fault is autonomy.ErrGrant (the endpoint's 400).
func (a approval) checkHTTP(verb string) error {
	err := a.check()
	if err == nil || errors.Is(err, autonomy.ErrWildcard) {
		return err
	}
	return fmt.Errorf("%s: %w: %v", verb, autonomy.ErrGrant, err)
}

// record has the pipeline record a decision the gate made (err: it made
// none).
func (h httpApprovals) record(ctx context.Context, dec eventlog.ElevationDecided, now int64, err error) (eventlog.ElevationDecided, error) {
	if err != nil {
		return eventlog.ElevationDecided{}, err
	}
	if err := h.p.RecordApproval(ctx, pipeline.Approval{Decided: dec, Now: now}); err != nil {
		return dec, err
	}
	return dec, nil
}

// Deny refuses req, a pending elevation, on the word of approver, the
// authenticated principal's name, and records the denial.
func (h httpApprovals) Deny(ctx context.Context, approver string, req httpapi.DenialRequest) (eventlog.ElevationDecided, error) {
	a := approval{Session: req.Session, Tools: req.Tools, Tier: req.Tier, Approver: approver, Deny: true, GrantID: newDecisionID("d-")}
	if err := a.checkHTTP("deny"); err != nil {
		return eventlog.ElevationDecided{}, err
	}
	if h.p.Gates() == nil {
		return eventlog.ElevationDecided{}, fmt.Errorf("deny: %w", autonomy.ErrNotPending)
	}
	dec, now, err := denyElevation(ctx, h.auth, h.p.Gates(), a)
	return h.record(ctx, dec, now, err)
}

// Revoke ends the live grant req names on the word of approver, the
// authenticated principal's name, and records the revocation.
func (h httpApprovals) Revoke(ctx context.Context, approver string, req httpapi.RevocationRequest) (eventlog.ElevationExpired, error) {
	if !pipelineName(req.Session) || !pipelineName(req.GrantID) {
		return eventlog.ElevationExpired{}, fmt.Errorf("revoke: %w: session and grant id: letters, digits and _.:-, at most 128", autonomy.ErrGrant)
	}
	ap, err := h.auth.Approver(approver)
	if err != nil {
		return eventlog.ElevationExpired{}, err
	}
	gates := h.p.Gates()
	if gates == nil {
		return eventlog.ElevationExpired{}, fmt.Errorf("revoke: %w", autonomy.ErrNoGrant)
	}
	g, err := gates.Gate(req.Session)
	if err != nil {
		return eventlog.ElevationExpired{}, err
	}
	exp, err := g.Revoke(ctx, ap, req.GrantID)
	if err != nil {
		return eventlog.ElevationExpired{}, err
	}
	// The grant has ended: record it whatever happens to the request.
	ctx = context.WithoutCancel(ctx)
	now, err := gates.Now(ctx)
	if err != nil {
		return exp, err
	}
	if err := h.p.RecordRevocation(ctx, pipeline.Revocation{Expired: exp, Approver: approver, Now: now}); err != nil {
		return exp, err
	}
	return exp, nil
}
