package eventlog

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"sync"
	"time"
)

// Store holds events in the order they were appended. Append returns
// nil only once the event is acknowledged: for a durable store, once it
// survives a crash of the process and the machine (see FileStore).
// Append refuses, storing nothing, an event whose seq is not one more
// than the last stored seq of its (run, producer) (1 for the first) or
// whose logical time is before that event's, with an error wrapping
// ErrSequence (CheckNext): a writer whose view of the log is stale never
// writes a duplicate or a gap. Scan calls fn for every acknowledged event
// in append order and stops at the first error fn returns.
// Implementations are safe for concurrent use; the contract suite
// eventlog/eventlogtest holds every implementation to this.
type Store interface {
	Append(ctx context.Context, e Event) error
	Scan(ctx context.Context, fn func(Event) error) error
}

// BatchStore is a Store that appends several events as one: AppendBatch
// returns nil once every event of the batch is acknowledged and, on an
// error, stores none of them. Each event is checked as Append would check
// it after the ones before it in the batch were stored (CheckNext, a new
// id), so a batch may hold several events of one (run, producer). An
// empty batch stores nothing and returns nil. Log writes through it, one
// transaction or one fsync for all the events that wait at once.
type BatchStore interface {
	Store
	AppendBatch(ctx context.Context, events []Event) error
}

var (
	_ BatchStore = (*MemStore)(nil)
	_ BatchStore = (*FileStore)(nil)
)

// CheckNext reports whether e may follow the last stored event of its
// (run, producer), whose seq and logical time are lastSeq and lastTime
// (0 and 0 when there is none): e.Seq must be lastSeq+1 and e.Time at
// least lastTime. The error wraps ErrSequence and quotes no content.
func CheckNext(e Event, lastSeq, lastTime int64) error {
	if e.Seq != lastSeq+1 {
		return fmt.Errorf("%w: seq %d, want %d for its (run, producer)", ErrSequence, e.Seq, lastSeq+1)
	}
	if e.Time < lastTime {
		return fmt.Errorf("%w: logical time goes back for its (run, producer)", ErrSequence)
	}
	return nil
}

// MemStore is a Store in memory, for tests and one-shot runs.
type MemStore struct {
	mu     sync.Mutex
	events []Event
	last   map[runProducer]producerState
}

// Append validates e and keeps it.
func (m *MemStore) Append(ctx context.Context, e Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	if err := e.Validate(); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	e.Payload = append(json.RawMessage(nil), e.Payload...)
	m.mu.Lock()
	defer m.mu.Unlock()
	k := runProducer{e.Run, e.Producer}
	st := m.last[k]
	if err := CheckNext(e, st.seq, st.time); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	if m.last == nil {
		m.last = map[runProducer]producerState{}
	}
	m.last[k] = producerState{seq: e.Seq, time: e.Time}
	m.events = append(m.events, e)
	return nil
}

// AppendBatch validates and keeps every event of events, or none.
func (m *MemStore) AppendBatch(ctx context.Context, events []Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	kept := make([]Event, len(events))
	for i, e := range events {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("append events: event %d: %w", i, err)
		}
		e.Payload = append(json.RawMessage(nil), e.Payload...)
		kept[i] = e
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	next, err := checkBatch(kept, func(k runProducer) producerState { return m.last[k] })
	if err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	if m.last == nil {
		m.last = map[runProducer]producerState{}
	}
	maps.Copy(m.last, next)
	m.events = append(m.events, kept...)
	return nil
}

// checkBatch checks events in order, each against the state the ones
// before it leave (stored reads a (run, producer)'s stored state), and
// returns the state after the last; it refuses an id repeated within the
// batch (ErrOrder). Ids already stored are the store's to check.
func checkBatch(events []Event, stored func(runProducer) producerState) (map[runProducer]producerState, error) {
	next := map[runProducer]producerState{}
	ids := make(map[string]bool, len(events))
	for i, e := range events {
		k := runProducer{e.Run, e.Producer}
		st, ok := next[k]
		if !ok {
			st = stored(k)
		}
		if err := CheckNext(e, st.seq, st.time); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		if ids[e.ID] {
			return nil, fmt.Errorf("event %d: %w: duplicate event id", i, ErrOrder)
		}
		ids[e.ID] = true
		next[k] = producerState{seq: e.Seq, time: e.Time}
	}
	return next, nil
}

// Scan calls fn for every event, in append order, over a snapshot taken
// when it starts.
func (m *MemStore) Scan(ctx context.Context, fn func(Event) error) error {
	m.mu.Lock()
	events := m.events[:len(m.events):len(m.events)]
	m.mu.Unlock()
	for _, e := range events {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan events: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// ReadAll returns every event of s in append order.
func ReadAll(ctx context.Context, s Store) ([]Event, error) {
	var out []Event
	err := s.Scan(ctx, func(e Event) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// Timing is one wall-clock measurement, keyed by the event it belongs
// to. Timings never enter an event or the log hash, and nothing reads
// them back to decide anything.
type Timing struct {
	Event string `json:"event"`
	Name  string `json:"name"`
	Nanos int64  `json:"ns"`
}

// ProfileSink receives timings. Implementations are safe for concurrent
// use and never fail the caller.
type ProfileSink interface {
	Record(Timing)
}

// ProfileWriter is a ProfileSink that writes one JSON line per timing.
// The first write error is kept (Err) and later timings are dropped: a
// profile is diagnostics, not record.
type ProfileWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewProfileWriter returns a ProfileWriter writing to w.
func NewProfileWriter(w io.Writer) *ProfileWriter { return &ProfileWriter{w: w} }

// Record writes t as a JSON line.
func (p *ProfileWriter) Record(t Timing) {
	b, err := json.Marshal(t)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	if _, err := p.w.Write(append(b, '\n')); err != nil {
		p.err = fmt.Errorf("write profile: %w", err)
	}
}

// Err returns the first write error.
func (p *ProfileWriter) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Options configures a Log. nil means defaults: a random run id and
// random event ids, stamped with the wall clock, host and process.
type Options struct {
	// Run names the run; empty means derived from Seed in deterministic
	// mode and random otherwise.
	Run string
	// Seed is recorded on every event, from 0 to 2^53-1.
	Seed int64
	// Deterministic derives event ids from (seed, run, producer, seq),
	// so that two runs of the same input write the same log hash.
	Deterministic bool
	// Anonymous leaves out the non-deterministic fields (wall_time,
	// host, pid) altogether.
	Anonymous bool
	// Now is the wall clock for wall_time and the profile; nil means
	// time.Now.
	Now func() time.Time
	// Host and PID identify the writer; empty and 0 mean os.Hostname
	// and os.Getpid.
	Host string
	PID  int64
	// Profile receives the wall-clock time of each append; nil means
	// none.
	Profile ProfileSink
	// Random is the source of random ids; nil means crypto/rand.
	Random io.Reader
}

// Entry is what a producer appends: its name, its logical time, the
// optional causation and correlation ids, and the payload.
type Entry struct {
	Producer    string
	Time        int64
	Causation   string
	Correlation string
	Payload     Payload
}

// Log writes the events of one run to a Store, giving each a dense
// sequence number per producer (from 1, continuing what the store
// already holds for the run) and an id. It is safe for concurrent use:
// each producer's events are stored in the order of their sequence
// numbers.
//
// Appends are committed in groups. Submit builds the next event and
// queues it, and Pending.Wait writes every event queued by then in one
// store call (AppendBatch, when the store is a BatchStore: one
// transaction or one fsync), while appends made meanwhile wait for the
// next such call. An event is acknowledged only together with or after
// every event submitted before it: when a write fails, its events and
// every event queued behind them fail (ErrAborted for the latter), and
// the producers' sequence numbers go back to the last acknowledged ones.
type Log struct {
	store Store
	opts  Options

	mu      sync.Mutex
	flushed *sync.Cond // signalled when a write ends
	// state is where each producer stands counting the queued events;
	// acked, counting only the acknowledged ones.
	state, acked map[string]producerState
	queue        []*Pending // submitted, not yet being written
	writing      bool       // a write is in flight (mu is released during it)
	// last, when set, reads a producer's state on its first append
	// instead of a scan at open (a store that can: LastReader).
	last LastReader
}

// maxBatch bounds the events of one write.
const maxBatch = 512

// LastReader is a Store that can say where one (run, producer) stands:
// the seq and logical time of its last stored event, or 0 and 0. NewLog
// then reads each producer's state when it first appends, instead of
// scanning the whole store when it opens (the database stores).
type LastReader interface {
	Last(ctx context.Context, run, producer string) (seq, time int64, err error)
}

type producerState struct {
	seq  int64
	time int64
}

// NewLog returns a Log appending to store. A run drawn at random here is
// new, so nothing is read; a named or deterministic run continues where
// the store has it: read per producer on its first append when the store
// is a LastReader, else by one scan of the store now.
func NewLog(ctx context.Context, store Store, opts *Options) (*Log, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Seed < 0 || o.Seed > MaxSafeInteger {
		return nil, fmt.Errorf("open log: %w: seed: want an integer from 0 to 2^53-1", ErrInvalid)
	}
	if o.Random == nil {
		o.Random = rand.Reader
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if !o.Anonymous {
		if o.Host == "" {
			if h, err := os.Hostname(); err == nil && hostPattern.MatchString(h) {
				o.Host = h
			}
		}
		if o.PID == 0 {
			o.PID = int64(os.Getpid())
		}
	}
	fresh := o.Run == "" && !o.Deterministic
	if o.Run == "" {
		if o.Deterministic {
			sum := sha256.Sum256(fmt.Appendf(nil, "provenant/eventlog/run\x00%d", o.Seed))
			o.Run = "run-" + hex.EncodeToString(sum[:8])
		} else {
			var b [8]byte
			if _, err := io.ReadFull(o.Random, b[:]); err != nil {
				return nil, fmt.Errorf("open log: draw run id: %w", err)
			}
			o.Run = "run-" + hex.EncodeToString(b[:])
		}
	}
	if !namePattern.MatchString(o.Run) {
		return nil, fmt.Errorf("open log: %w: run: want a name matching %s", ErrInvalid, namePattern)
	}
	l := &Log{store: store, opts: o, state: map[string]producerState{}, acked: map[string]producerState{}}
	l.flushed = sync.NewCond(&l.mu)
	if fresh {
		// 64 random bits name a run no store holds; were it otherwise,
		// the store would refuse the repeated seq (ErrSequence).
		return l, nil
	}
	if lr, ok := store.(LastReader); ok {
		l.last = lr
		return l, nil
	}
	err := store.Scan(ctx, func(e Event) error {
		if e.Run == o.Run {
			st := l.state[e.Producer]
			l.state[e.Producer] = producerState{seq: max(st.seq, e.Seq), time: max(st.time, e.Time)}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	maps.Copy(l.acked, l.state)
	return l, nil
}

// Run returns the run id every event of l carries.
func (l *Log) Run() string { return l.opts.Run }

// EventID returns the id of the seq'th event of producer in a
// deterministic run: "evt-" and the first 16 bytes, in hex, of
// SHA-256("provenant/eventlog/id" 0 seed(8 bytes, big-endian) run 0
// producer 0 seq(8 bytes, big-endian)).
func EventID(seed int64, run, producer string, seq int64) string {
	h := sha256.New()
	h.Write([]byte("provenant/eventlog/id\x00"))
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(seed)))
	h.Write([]byte(run + "\x00" + producer + "\x00"))
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(seq)))
	return "evt-" + hex.EncodeToString(h.Sum(nil)[:16])
}

// Append builds the next event of e.Producer and appends it to the
// store, waiting for it (Submit, then Wait). When it returns nil the
// event is acknowledged (as the store defines it); on an error nothing
// was acknowledged and the producer's sequence number is not used up. A
// logical time before the producer's previous one is refused
// (ErrSequence).
func (l *Log) Append(ctx context.Context, e Entry) (Event, error) {
	ev, p, err := l.Submit(ctx, e, nil)
	if err != nil {
		return Event{}, err
	}
	if err := p.Wait(ctx); err != nil {
		return Event{}, err
	}
	return ev, nil
}

// Pending is an event submitted to a Log whose acknowledgement is not yet
// known.
type Pending struct {
	l     *Log
	event Event
	start time.Time
	// done and err are guarded by l.mu.
	done bool
	err  error
}

// Submit builds the next event of e.Producer and queues it, returning it
// at once with a Pending to wait on: the event is not acknowledged until
// Wait (on it or on a later event of l) returns nil. Its seq, id and
// wall time are final; a failed write does not use them up, so a later
// event may take them. With after not nil, Submit refuses (ErrAborted),
// queueing nothing, once after is known to have failed, and otherwise
// queues the event behind it: an event never lands in the store after
// its cause failed. A logical time before the producer's previous one
// is refused (ErrSequence).
func (l *Log) Submit(ctx context.Context, e Entry, after *Pending) (Event, *Pending, error) {
	if err := ctx.Err(); err != nil {
		return Event{}, nil, fmt.Errorf("append event: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if after != nil && after.done && after.err != nil {
		return Event{}, nil, fmt.Errorf("append event: %w", ErrAborted)
	}
	st, known := l.state[e.Producer]
	if !known && l.last != nil {
		seq, t, err := l.last.Last(ctx, l.opts.Run, e.Producer)
		if err != nil {
			return Event{}, nil, fmt.Errorf("append event: read the producer's last event: %w", err)
		}
		st = producerState{seq: seq, time: t}
		l.state[e.Producer], l.acked[e.Producer] = st, st
	}
	if e.Time < st.time {
		return Event{}, nil, fmt.Errorf("append event: %w: logical time goes back for its producer", ErrSequence)
	}
	env := Envelope{
		Run: l.opts.Run, Producer: e.Producer, Seq: st.seq + 1, Seed: l.opts.Seed,
		Causation: e.Causation, Correlation: e.Correlation, Time: e.Time,
	}
	if l.opts.Deterministic {
		env.ID = EventID(l.opts.Seed, env.Run, env.Producer, env.Seq)
	} else {
		var b [16]byte
		if _, err := io.ReadFull(l.opts.Random, b[:]); err != nil {
			return Event{}, nil, fmt.Errorf("append event: draw id: %w", err)
		}
		env.ID = "evt-" + hex.EncodeToString(b[:])
	}
	start := l.opts.Now()
	if !l.opts.Anonymous {
		env.WallTime = start.UTC().Format(time.RFC3339Nano)
		env.Host, env.PID = l.opts.Host, l.opts.PID
	}
	ev, err := NewEvent(env, e.Payload)
	if err != nil {
		return Event{}, nil, fmt.Errorf("append event: %w", err)
	}
	p := &Pending{l: l, event: ev, start: start}
	l.queue = append(l.queue, p)
	l.state[e.Producer] = producerState{seq: env.Seq, time: e.Time}
	return ev, p, nil
}

// Event returns the submitted event.
func (p *Pending) Event() Event { return p.event }

// Wait returns nil once p's event is acknowledged, or the error that
// kept it from the store. If no write is in flight it writes everything
// queued (p's event and the events submitted with it, up to 512); if one
// is, it waits for it and then writes what is left. The write runs under
// ctx's values but not its cancellation, since it carries other callers'
// events too: Wait returns only once the outcome is known.
func (p *Pending) Wait(ctx context.Context) error {
	l := p.l
	l.mu.Lock()
	defer l.mu.Unlock()
	for !p.done {
		if l.writing {
			l.flushed.Wait()
			continue
		}
		l.write(context.WithoutCancel(ctx))
	}
	return p.err
}

// write stores the first events of the queue in one store call; l.mu is
// held on entry and on return, and released during the call.
func (l *Log) write(ctx context.Context) {
	n := min(len(l.queue), maxBatch)
	batch := l.queue[:n:n]
	l.queue = append([]*Pending(nil), l.queue[n:]...)
	l.writing = true
	l.mu.Unlock()
	events := make([]Event, n)
	for i, p := range batch {
		events[i] = p.event
	}
	stored, err := l.put(ctx, events)
	l.mu.Lock()
	l.writing = false
	defer l.flushed.Broadcast()
	end := l.opts.Now()
	for _, p := range batch[:stored] {
		p.done = true
		l.acked[p.event.Producer] = producerState{seq: p.event.Seq, time: p.event.Time}
		if l.opts.Profile != nil {
			l.opts.Profile.Record(Timing{Event: p.event.ID, Name: "append", Nanos: end.Sub(p.start).Nanoseconds()})
		}
	}
	if err == nil {
		return
	}
	for _, p := range batch[stored:] {
		p.done, p.err = true, fmt.Errorf("append event: %w", err)
	}
	// What was queued meanwhile counted on the failed events' seqs.
	for _, p := range l.queue {
		p.done, p.err = true, fmt.Errorf("append event: %w: %w", ErrAborted, err)
	}
	l.queue = nil
	l.state = maps.Clone(l.acked)
}

// put stores events in order and returns how many were stored: all or
// none through a BatchStore, else one Append each up to the first error.
func (l *Log) put(ctx context.Context, events []Event) (int, error) {
	if bs, ok := l.store.(BatchStore); ok {
		if err := bs.AppendBatch(ctx, events); err != nil {
			return 0, err
		}
		return len(events), nil
	}
	for i, e := range events {
		if err := l.store.Append(ctx, e); err != nil {
			return i, err
		}
	}
	return len(events), nil
}

// Profile records a wall-clock measurement against an event id (how long
// a tool ran, say) in the profile sink, if there is one.
func (l *Log) Profile(eventID, name string, d time.Duration) {
	if l.opts.Profile != nil {
		l.opts.Profile.Record(Timing{Event: eventID, Name: name, Nanos: d.Nanoseconds()})
	}
}
