package demo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

var (
	update = flag.Bool("update", false, "rewrite the golden files under testdata/ from the generator")
	large  = flag.Bool("large", false, "run the ten-million-event streaming test")
)

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// goldenOptions are small enough for the committed sample to be read by a
// person, and large enough to show every status and a fault.
func goldenOptions() Options {
	return Options{
		Seed: 7, Zones: 3, Devices: 8, Events: 120,
		Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), Days: 1,
	}
}

// files renders everything the package writes for o, by file name.
func files(t tb, o Options) map[string][]byte {
	t.Helper()
	zones, devices, err := Layout(o)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for name, write := range map[string]func(io.Writer) error{
		"events.jsonl":  func(w io.Writer) error { return WriteJSONL(context.Background(), w, o) },
		"events.csv":    func(w io.Writer) error { return WriteCSV(context.Background(), w, o) },
		"devices.jsonl": func(w io.Writer) error { return WriteDevicesJSONL(w, devices) },
		"devices.csv":   func(w io.Writer) error { return WriteDevicesCSV(w, devices) },
		"zones.jsonl":   func(w io.Writer) error { return WriteZonesJSONL(w, zones) },
		"zones.csv":     func(w io.Writer) error { return WriteZonesCSV(w, zones) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = buf.Bytes()
	}
	return out
}

// TestGolden keeps the committed sample under testdata/ identical to the
// generator's output, byte for byte.
func TestGolden(t *testing.T) {
	got := files(t, goldenOptions())
	for name, b := range got {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "golden-"+name)
			if *update {
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./warehouse/demo -update)", err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("%s differs from the generator's output; run go test ./warehouse/demo -update", path)
			}
		})
	}
}

// TestGenerate_Deterministic generates the default demo twice and gets the
// same bytes.
func TestGenerate_Deterministic(t *testing.T) {
	a, b := files(t, DefaultOptions()), files(t, DefaultOptions())
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s: two runs differ", name)
		}
	}
}

// TestGenerate_SeedsDiffer checks that another seed gives other events
// and another dataset version.
func TestGenerate_SeedsDiffer(t *testing.T) {
	o1, o2 := goldenOptions(), goldenOptions()
	o2.Seed++
	a, b := files(t, o1), files(t, o2)
	if bytes.Equal(a["events.jsonl"], b["events.jsonl"]) {
		t.Error("seeds 7 and 8 generate the same events")
	}
	if o1.DatasetVersion() == o2.DatasetVersion() {
		t.Error("seeds 7 and 8 share a dataset version")
	}
}

func TestOptions_DatasetVersion(t *testing.T) {
	def := DefaultOptions()
	other := goldenOptions()
	moved := def
	moved.Start = def.Start.Add(90 * time.Minute)
	named := def
	named.Version = "my-warehouse"
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"default", def, DemoVersion},
		{"other", other, "warehouse-gen-s7-e120-z3-dv8-d1"},
		{"moved start", moved, "warehouse-gen-s20260105-e20000-z6-dv40-d7-t20260105T013000Z"},
		{"named", named, "my-warehouse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.o.DatasetVersion(); got != tt.want {
				t.Errorf("DatasetVersion() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOptions_ValidateNamesTheField(t *testing.T) {
	mod := func(f func(*Options)) Options { o := DefaultOptions(); f(&o); return o }
	tests := []struct {
		name      string
		o         Options
		wantField string // "" for valid
	}{
		{"default", DefaultOptions(), ""},
		{"no zones", mod(func(o *Options) { o.Zones = 0 }), "zones"},
		{"too many zones", mod(func(o *Options) { o.Zones = 100 }), "zones"},
		{"no devices", mod(func(o *Options) { o.Devices = 0 }), "devices"},
		{"too many devices", mod(func(o *Options) { o.Devices = 10000 }), "devices"},
		{"negative events", mod(func(o *Options) { o.Events = -1 }), "events"},
		{"too many events", mod(func(o *Options) { o.Events = MaxEvents + 1 }), "events"},
		{"max events", mod(func(o *Options) { o.Events = MaxEvents }), ""},
		{"no days", mod(func(o *Options) { o.Days = 0 }), "days"},
		{"zero start", mod(func(o *Options) { o.Start = time.Time{} }), "start"},
		{"fractional start", mod(func(o *Options) { o.Start = o.Start.Add(time.Millisecond) }), "start"},
		{"long version", mod(func(o *Options) { o.Seed = 1 << 63; o.Start = o.Start.Add(time.Hour) }), "version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Field != tt.wantField {
				t.Fatalf("Validate() = %v, want an *OptionError on %s", err, tt.wantField)
			}
			// Generate and the writers report it too, wrapped.
			if err := Generate(context.Background(), tt.o, func(*Event) error { return nil }); !errors.As(err, &oe) {
				t.Errorf("Generate() = %v, want the *OptionError", err)
			}
			if err := WriteCSV(context.Background(), io.Discard, tt.o); !errors.As(err, &oe) {
				t.Errorf("WriteCSV() = %v, want the *OptionError", err)
			}
		})
	}
}

// TestGenerate_StopsOnErrorAndCancel checks that an emit error and a
// cancelled context end generation with that error.
func TestGenerate_StopsOnErrorAndCancel(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	err := Generate(context.Background(), DefaultOptions(), func(*Event) error {
		n++
		if n == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n != 10 {
		t.Errorf("Generate() = %v after %d events, want boom after 10", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = WriteJSONL(ctx, io.Discard, DefaultOptions())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("WriteJSONL(cancelled) = %v, want context.Canceled", err)
	}
}

// row is one event as read back from a written file.
type row struct {
	EventID      string  `json:"event_id"`
	DeviceID     string  `json:"device_id"`
	DeviceType   string  `json:"device_type"`
	ZoneID       string  `json:"zone_id"`
	TS           string  `json:"ts"`
	Status       string  `json:"status"`
	BatteryPct   int     `json:"battery_pct"`
	TemperatureC float64 `json:"temperature_c"`
	FaultCode    string  `json:"fault_code"`
}

func readJSONL(t tb, b []byte) []row {
	t.Helper()
	var rows []row
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var r row
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		rows = append(rows, r)
	}
	return rows
}

var tempRE = regexp.MustCompile(`^-?[0-9]+\.[0-9]$`)

func readCSV(t tb, b []byte) []row {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(EventColumns, ",") {
		t.Fatalf("header = %v, want %v", recs[0], EventColumns)
	}
	var rows []row
	for i, rec := range recs[1:] {
		bat, err1 := strconv.Atoi(rec[6])
		temp, err2 := strconv.ParseFloat(rec[7], 64)
		if err1 != nil || err2 != nil || !tempRE.MatchString(rec[7]) {
			t.Fatalf("row %d: battery_pct %q or temperature_c %q malformed", i+2, rec[6], rec[7])
		}
		rows = append(rows, row{rec[0], rec[1], rec[2], rec[3], rec[4], rec[5], bat, temp, rec[8]})
	}
	return rows
}

var (
	eventIDRE  = regexp.MustCompile(`^wh-evt-[0-9]{8}$`)
	deviceIDRE = regexp.MustCompile(`^dev-[0-9]{4}$`)
	zoneIDRE   = regexp.MustCompile(`^zone-[0-9]{2}$`)
)

// checkRows reports the first row that breaks a documented property.
func checkRows(rows []row, zones []Zone, devices []Device) error {
	dev := map[string]Device{}
	for _, d := range devices {
		if !deviceIDRE.MatchString(d.ID) || !zoneIDRE.MatchString(d.ZoneID) || d.Name == "" {
			return fmt.Errorf("device %+v malformed", d)
		}
		dev[d.ID] = d
	}
	zone := map[string]bool{}
	for _, z := range zones {
		if !zoneIDRE.MatchString(z.ID) || z.Name == "" {
			return fmt.Errorf("zone %+v malformed", z)
		}
		zone[z.ID] = true
	}
	for _, d := range devices {
		if !zone[d.ZoneID] {
			return fmt.Errorf("device %s in undeclared zone %s", d.ID, d.ZoneID)
		}
	}
	statuses := map[string]bool{}
	for _, s := range Statuses {
		statuses[string(s)] = true
	}
	codes := map[string]bool{}
	for _, c := range FaultCodes {
		codes[string(c)] = true
	}
	var prevTS string
	for i, r := range rows {
		at := fmt.Sprintf("row %d (%s)", i+1, r.EventID)
		if want := fmt.Sprintf("wh-evt-%08d", i+1); r.EventID != want || !eventIDRE.MatchString(r.EventID) {
			return fmt.Errorf("%s: event_id not the next in sequence %s", at, want)
		}
		ts, err := time.Parse(time.RFC3339, r.TS)
		if err != nil || ts.Format(time.RFC3339) != r.TS || !strings.HasSuffix(r.TS, "Z") {
			return fmt.Errorf("%s: ts not RFC 3339 UTC to the second", at)
		}
		if r.TS < prevTS {
			return fmt.Errorf("%s: ts goes back in time: ids and (ts, id) order disagree", at)
		}
		prevTS = r.TS
		d, ok := dev[r.DeviceID]
		if !ok {
			return fmt.Errorf("%s: device_id not in the device table", at)
		}
		if r.DeviceType != string(d.Type) || r.ZoneID != d.ZoneID {
			return fmt.Errorf("%s: device_type or zone_id differ from the device table", at)
		}
		if !statuses[r.Status] {
			return fmt.Errorf("%s: unknown status", at)
		}
		if (r.FaultCode != "") != (r.Status == string(Fault)) {
			return fmt.Errorf("%s: fault_code %q with status %s", at, r.FaultCode, r.Status)
		}
		if r.FaultCode != "" && !codes[r.FaultCode] {
			return fmt.Errorf("%s: unknown fault_code", at)
		}
		if r.FaultCode == string(EBattery) && d.Type != AGV {
			return fmt.Errorf("%s: E-BATTERY on mains-powered equipment", at)
		}
		if r.BatteryPct < 0 || r.BatteryPct > 100 {
			return fmt.Errorf("%s: battery_pct %d out of 0..100", at, r.BatteryPct)
		}
		if d.Type != AGV && r.BatteryPct != 100 {
			return fmt.Errorf("%s: fixed equipment reports battery_pct %d", at, r.BatteryPct)
		}
		if r.TemperatureC < -20 || r.TemperatureC > 90 {
			return fmt.Errorf("%s: temperature_c %.1f implausible", at, r.TemperatureC)
		}
	}
	return nil
}

// TestProperties checks, for random small options, every property the
// files promise, on both formats, and that the two formats hold the same
// rows.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		o := Options{
			Seed:    rapid.Uint64().Draw(rt, "seed"),
			Zones:   rapid.IntRange(1, 12).Draw(rt, "zones"),
			Devices: rapid.IntRange(1, 30).Draw(rt, "devices"),
			Events:  rapid.IntRange(0, 600).Draw(rt, "events"),
			Start:   time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).Add(time.Duration(rapid.IntRange(0, 1e6).Draw(rt, "offset")) * time.Second),
			Days:    rapid.IntRange(1, 30).Draw(rt, "days"),
		}
		o.Version = "prop" // the derived name of a huge seed may exceed 64 characters
		f := files(rt, o)
		zones, devices, err := Layout(o)
		if err != nil {
			rt.Fatal(err)
		}
		js, cs := readJSONL(rt, f["events.jsonl"]), readCSV(rt, f["events.csv"])
		if len(js) != o.Events || len(cs) != o.Events {
			rt.Fatalf("%d JSON Lines rows, %d CSV rows, want %d", len(js), len(cs), o.Events)
		}
		for i := range js {
			if js[i] != cs[i] {
				rt.Fatalf("row %d differs: JSON Lines %+v, CSV %+v", i+1, js[i], cs[i])
			}
		}
		if err := checkRows(js, zones, devices); err != nil {
			rt.Fatal(err)
		}
		if len(js) > 0 && js[0].TS < o.Start.Format(time.RFC3339) {
			rt.Fatalf("first event at %s, before the start %s", js[0].TS, o.Start.Format(time.RFC3339))
		}
		var dj []Device
		for _, line := range bytes.Split(bytes.TrimSpace(f["devices.jsonl"]), []byte("\n")) {
			var d Device
			if err := json.Unmarshal(line, &d); err != nil {
				rt.Fatal(err)
			}
			dj = append(dj, d)
		}
		if fmt.Sprint(dj) != fmt.Sprint(devices) {
			rt.Fatal("devices.jsonl differs from Layout")
		}
		if o.Devices >= o.Zones {
			used := map[string]bool{}
			for _, d := range devices {
				used[d.ZoneID] = true
			}
			if len(used) != o.Zones {
				rt.Fatalf("%d of %d zones have devices", len(used), o.Zones)
			}
		}
	})
}

// TestDemo_Model checks that the default demo behaves as the model says,
// in aggregate: every status, device type and fault code occurs; ties on
// the second occur; AGVs drain while running and charge while idle;
// temperature rises over running spells and falls over idle ones (blocked
// spells are short and mostly follow running, so their mean rise is
// logged, and TestStep_Physics checks that blocked heats more); low
// batteries make E-BATTERY the likeliest fault.
func TestDemo_Model(t *testing.T) {
	o := DefaultOptions()
	var buf bytes.Buffer
	if err := WriteJSONL(context.Background(), &buf, o); err != nil {
		t.Fatal(err)
	}
	rows := readJSONL(t, buf.Bytes())
	zones, devices, err := Layout(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkRows(rows, zones, devices); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	ties := 0
	type delta struct{ sum, n float64 }
	batt, temp := map[string]*delta{}, map[string]*delta{}
	for _, s := range Statuses {
		batt[string(s)], temp[string(s)] = &delta{}, &delta{}
	}
	lowFaults, lowBatteryFaults := 0, 0
	last := map[string]row{}
	for i, r := range rows {
		seen[r.Status]++
		seen[r.DeviceType]++
		seen[r.FaultCode]++
		if i > 0 && rows[i-1].TS == r.TS {
			ties++
		}
		if p, ok := last[r.DeviceID]; ok {
			// The reading at r is taken after the time spent in p's status.
			if r.DeviceType == string(AGV) {
				batt[p.Status].sum += float64(r.BatteryPct - p.BatteryPct)
				batt[p.Status].n++
			}
			temp[p.Status].sum += r.TemperatureC - p.TemperatureC
			temp[p.Status].n++
			if r.Status == string(Fault) && r.BatteryPct < criticalBatt && r.DeviceType == string(AGV) {
				lowFaults++
				if r.FaultCode == string(EBattery) {
					lowBatteryFaults++
				}
			}
		}
		last[r.DeviceID] = r
	}
	for _, want := range []string{"RUNNING", "IDLE", "BLOCKED", "FAULT", "MAINTENANCE", "AGV", "CONVEYOR", "SORTER", "LIFT", "E-MOTOR", "E-SENSOR", "E-JAM", "E-BATTERY", "E-COMM"} {
		if seen[want] == 0 {
			t.Errorf("no %s in the demo", want)
		}
	}
	if ties == 0 {
		t.Error("no two consecutive events share a second")
	}
	mean := func(d *delta) float64 { return d.sum / d.n }
	if m := mean(batt["RUNNING"]); m >= 0 {
		t.Errorf("AGV battery changes by %+.2f on average over a RUNNING spell, want a drain", m)
	}
	for _, s := range []string{"IDLE", "MAINTENANCE"} {
		if m := mean(batt[s]); m <= 0 {
			t.Errorf("AGV battery changes by %+.2f on average over a %s spell, want a charge", m, s)
		}
	}
	t.Logf("temperature change over RUNNING %+.2f, BLOCKED %+.2f, IDLE %+.2f, MAINTENANCE %+.2f", mean(temp["RUNNING"]), mean(temp["BLOCKED"]), mean(temp["IDLE"]), mean(temp["MAINTENANCE"]))
	if r, b, i := mean(temp["RUNNING"]), mean(temp["BLOCKED"]), mean(temp["IDLE"]); !(r > 0 && i < 0) {
		t.Errorf("temperature changes by %+.2f over RUNNING, %+.2f over BLOCKED, %+.2f over IDLE; want a rise while running and a fall while idle", r, b, i)
	}
	if lowFaults == 0 || lowBatteryFaults*2 <= lowFaults {
		t.Errorf("%d of %d faults at a critical battery are E-BATTERY, want most", lowBatteryFaults, lowFaults)
	}
	first, _ := time.Parse(time.RFC3339, rows[0].TS)
	end, _ := time.Parse(time.RFC3339, rows[len(rows)-1].TS)
	if span := end.Sub(first); span < 6*24*time.Hour || span > 8*24*time.Hour {
		t.Errorf("events span %v, want about 7 days", span)
	}
}

// TestGenerate_ConstantAllocsPerEvent shows that memory does not grow
// with the event count: ten times the events cost no more allocations per
// event (none at all for JSON Lines; one string per row for CSV, which
// encoding/csv needs).
func TestGenerate_ConstantAllocsPerEvent(t *testing.T) {
	allocs := func(events int, write func(context.Context, io.Writer, Options) error) float64 {
		o := DefaultOptions()
		o.Events = events
		return testing.AllocsPerRun(3, func() {
			if err := write(context.Background(), io.Discard, o); err != nil {
				t.Fatal(err)
			}
		})
	}
	tests := []struct {
		name       string
		write      func(context.Context, io.Writer, Options) error
		wantPerEvt float64
	}{
		{"jsonl", WriteJSONL, 0},
		{"csv", WriteCSV, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			small, big := allocs(2_000, tt.write), allocs(20_000, tt.write)
			perEvent := (big - small) / 18_000
			if perEvent > tt.wantPerEvt+0.01 {
				t.Errorf("%.0f allocations for 2,000 events, %.0f for 20,000: %.3f per event, want at most %v", small, big, perEvent, tt.wantPerEvt)
			}
		})
	}
}

// TestGenerate_TenMillionStreams (with -large) streams 10,000,000 events
// and checks that the heap stays small throughout.
func TestGenerate_TenMillionStreams(t *testing.T) {
	if !*large {
		t.Skip("run with -large")
	}
	o := DefaultOptions()
	o.Events = 10_000_000
	o.Devices = 2000
	o.Zones = 40
	var ms runtime.MemStats
	maxHeap := uint64(0)
	n := 0
	start := time.Now()
	var b []byte
	err := Generate(context.Background(), o, func(e *Event) error {
		b = appendJSONL(b[:0], e)
		n++
		if n%1_000_000 == 0 {
			runtime.ReadMemStats(&ms)
			maxHeap = max(maxHeap, ms.HeapInuse)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != o.Events {
		t.Fatalf("%d events, want %d", n, o.Events)
	}
	if maxHeap > 64<<20 {
		t.Errorf("heap in use reached %d MB while streaming", maxHeap>>20)
	}
	t.Logf("%d events in %v, heap in use at most %d MB", n, time.Since(start), maxHeap>>20)
}

// BenchmarkGenerate reports events per second: generating alone, and
// generating and writing each format (to io.Discard).
func BenchmarkGenerate(b *testing.B) {
	o := DefaultOptions()
	o.Events = 100_000
	for _, bb := range []struct {
		name  string
		write func(context.Context, io.Writer, Options) error
	}{
		{"model", func(ctx context.Context, _ io.Writer, o Options) error {
			return Generate(ctx, o, func(*Event) error { return nil })
		}},
		{"jsonl", WriteJSONL},
		{"csv", WriteCSV},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bb.write(context.Background(), io.Discard, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(o.Events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// FuzzGenerate feeds arbitrary options: each is either refused with an
// *OptionError naming a field, or generates rows with every documented
// property.
func FuzzGenerate(f *testing.F) {
	f.Add(uint64(7), 3, 8, 120, 1, int64(0))
	f.Add(uint64(0), 1, 1, 0, 1, int64(-1))
	f.Add(uint64(1<<63), 99, 9999, 50, 3660, int64(1e9))
	f.Add(uint64(5), 0, 10, 10, 1, int64(0))
	f.Add(uint64(5), 10, 2, 3000, 2, int64(59))
	f.Fuzz(func(t *testing.T, seed uint64, zones, devices, events, days int, offset int64) {
		o := Options{
			Seed: seed, Zones: zones, Devices: devices, Events: events, Days: days,
			Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).Add(time.Duration(offset) * time.Second),
		}
		if err := o.Validate(); err != nil {
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Field == "" {
				t.Fatalf("Validate() = %v, want an *OptionError", err)
			}
			return
		}
		if events > 3000 || devices > 500 {
			t.Skip("too large to check quickly")
		}
		var buf bytes.Buffer
		if err := WriteJSONL(context.Background(), &buf, o); err != nil {
			t.Fatal(err)
		}
		zs, ds, err := Layout(o)
		if err != nil {
			t.Fatal(err)
		}
		rows := readJSONL(t, buf.Bytes())
		if len(rows) != events {
			t.Fatalf("%d rows, want %d", len(rows), events)
		}
		if err := checkRows(rows, zs, ds); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDemo_Digests pins the default demo without committing it: the
// SHA-256 of every file DefaultOptions generate is kept in
// testdata/demo-sha256.txt (rewritten with -update).
func TestDemo_Digests(t *testing.T) {
	f := files(t, DefaultOptions())
	names := make([]string, 0, len(f))
	for name := range f {
		names = append(names, name)
	}
	slices.Sort(names)
	var got strings.Builder
	for _, name := range names {
		fmt.Fprintf(&got, "%x  %s\n", sha256.Sum256(f[name]), name)
	}
	path := filepath.Join("testdata", "demo-sha256.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./warehouse/demo -update)", err)
	}
	if got.String() != string(want) {
		t.Errorf("the default demo changed:\n%s\nwant:\n%s\n(run go test ./warehouse/demo -update if intended, and bump DemoVersion)", got.String(), want)
	}
}

// TestStep_Physics checks one step of the device model: from the same
// temperature and battery, with the same noise, an hour BLOCKED ends
// hotter than an hour RUNNING, which ends hotter than an hour IDLE; an
// AGV's battery drains while running and blocked and charges while idle
// or in maintenance; mains-powered equipment keeps 100.
func TestStep_Physics(t *testing.T) {
	const ambient = 20.0
	after := func(typ, status int, temp, battery float64, secs int64) *deviceState {
		s := &deviceState{typ: typ, ambient: ambient, rng: stream(1, "physics"), status: status, temp: temp, battery: battery}
		s.step(secs)
		return s
	}
	for typ := range nType {
		t.Run(string(DeviceTypes[typ]), func(t *testing.T) {
			warm := ambient + heat[typ]/2
			run, blocked, idle := after(typ, sRunning, warm, 50, 3600), after(typ, sBlocked, warm, 50, 3600), after(typ, sIdle, warm, 50, 3600)
			if !(blocked.temp > run.temp && run.temp > warm && idle.temp < warm) {
				t.Errorf("from %.1f: blocked %.1f, running %.1f, idle %.1f; want blocked > running > start > idle", warm, blocked.temp, run.temp, idle.temp)
			}
			if got := after(typ, sIdle, ambient, 50, 36000).temp; got < ambient-0.5 || got > ambient+0.5 {
				t.Errorf("ten hours idle at ambient %.1f end at %.1f", ambient, got)
			}
			if typ != tAGV {
				if run.battery != 50 { // the field is not used for fixed equipment
					t.Errorf("battery of %s moved to %.1f", DeviceTypes[typ], run.battery)
				}
				return
			}
			if !(run.battery < 50 && blocked.battery < 50) {
				t.Errorf("battery after an hour running %.1f, blocked %.1f; want a drain from 50", run.battery, blocked.battery)
			}
			if m := after(typ, sMaintenance, warm, 50, 3600).battery; !(idle.battery > 50 && m > 50) {
				t.Errorf("battery after an hour idle %.1f, in maintenance %.1f; want a charge from 50", idle.battery, m)
			}
			if b := after(typ, sRunning, warm, 5, 3600); b.battery != 0 || b.status != sFault || b.fault != EBattery {
				t.Errorf("an AGV running flat ends at %.1f%%, %s %q; want 0, FAULT E-BATTERY", b.battery, Statuses[b.status], b.fault)
			}
			if full := after(typ, sIdle, warm, 95, 36000); full.battery != 100 {
				t.Errorf("ten hours charging from 95 ends at %.1f", full.battery)
			}
		})
	}
}

// TestWriteDir checks that WriteDir writes exactly what the writers do,
// and that a cancelled run leaves no file behind.
func TestWriteDir(t *testing.T) {
	o := goldenOptions()
	dir := t.TempDir()
	if err := WriteDir(context.Background(), dir, o); err != nil {
		t.Fatal(err)
	}
	want := files(t, o)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(FileNames) {
		t.Errorf("%d files in the directory, want %d", len(entries), len(FileNames))
	}
	for _, name := range FileNames {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[name]) {
			t.Errorf("%s differs from the writer's output", name)
		}
	}

	empty := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := DefaultOptions()
	if err := WriteDir(ctx, empty, big); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteDir(cancelled) = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("a cancelled WriteDir left %d files", len(entries))
	}
	var oe *OptionError
	if err := WriteDir(context.Background(), empty, Options{}); !errors.As(err, &oe) {
		t.Errorf("WriteDir(zero options) = %v, want an *OptionError", err)
	}
	if err := WriteDir(context.Background(), filepath.Join(empty, "missing"), o); err == nil {
		t.Error("WriteDir into a missing directory succeeded")
	}
}

// TestGenerate_DeviceHistoryIndependent checks the package doc's claim:
// doubling the devices and the events (the same rate per device) leaves
// the first devices' histories unchanged, up to the end of the shorter run.
func TestGenerate_DeviceHistoryIndependent(t *testing.T) {
	small, big := goldenOptions(), goldenOptions()
	big.Devices, big.Events = 2*small.Devices, 2*small.Events
	type report struct {
		unix            int64
		status          Status
		battery, tenths int
		fault           FaultCode
	}
	histories := func(o Options) (map[string][]report, int64) {
		h := map[string][]report{}
		var last int64
		err := Generate(context.Background(), o, func(e *Event) error {
			h[e.Device.ID] = append(h[e.Device.ID], report{e.Unix, e.Status, e.BatteryPct, e.TemperatureTenths, e.FaultCode})
			last = e.Unix
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return h, last
	}
	hs, endS := histories(small)
	hb, endB := histories(big)
	end := min(endS, endB)
	compared := 0
	for id, a := range hs {
		b := hb[id]
		for i := range a {
			if a[i].unix >= end {
				break
			}
			if i >= len(b) || a[i] != b[i] {
				t.Fatalf("%s report %d: %+v with %d devices, differs with %d", id, i+1, a[i], small.Devices, big.Devices)
			}
			compared++
		}
	}
	if compared < small.Events/2 {
		t.Errorf("only %d reports compared", compared)
	}
}
