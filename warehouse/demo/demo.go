// Package demo generates warehouse-equipment telemetry deterministically
// from a seed: zones, devices (AGVs, conveyors, sorters, lifts) placed in
// them, and a stream of status events with battery and temperature
// readings and fault codes.
//
// The generator is a small model rather than noise. Each device runs a
// Markov chain over its statuses (RUNNING, IDLE, BLOCKED, FAULT,
// MAINTENANCE) with per-type transition weights and exponentially
// distributed dwell times; an AGV's battery drains while it runs and
// charges while it idles or is in maintenance, and a low battery makes it
// head for the charger or fail with E-BATTERY; a device's temperature
// relaxes toward a target set by its status and zone (warm while running,
// hotter when blocked, back to ambient when idle). An event reports the
// status a device enters, with the battery and temperature it has at that
// moment, after its time in the previous status; a self-transition is a
// periodic report in an unchanged status. The devices' events are merged
// in time order (ties on the second broken by device id) and
// numbered in that order, so event ids and (ts, event_id) order agree.
//
// Randomness comes from named streams (math/rand/v2 PCG seeded with the
// seed and a hash of the stream's name): one for the layout and one per
// device, so a device's history depends only on its own stream and its
// event rate (Events / Devices over Days), never on the other devices'
// draws.
//
// Events are produced one at a time and handed to a callback, so ten
// million of them stream in constant memory. WriteJSONL and WriteCSV write
// the events; WriteDevicesJSONL, WriteDevicesCSV, WriteZonesJSONL and
// WriteZonesCSV write the reference tables; WriteDir writes all six files
// into a directory. The same Options always give the same bytes.
package demo

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// DemoVersion is the dataset version of what DefaultOptions generate.
const DemoVersion = "warehouse-demo-v1"

// Limits on Options.
const (
	MaxZones   = 99
	MaxDevices = 9999
	MaxEvents  = 999_999_999 // the wh-evt-NNNNNNNNN id format's ceiling
	MaxDays    = 3660
)

// DeviceType is the kind of a device.
type DeviceType string

// The device types.
const (
	AGV      DeviceType = "AGV"
	Conveyor DeviceType = "CONVEYOR"
	Sorter   DeviceType = "SORTER"
	Lift     DeviceType = "LIFT"
)

// DeviceTypes lists the device types in a fixed order.
var DeviceTypes = []DeviceType{AGV, Conveyor, Sorter, Lift}

// Status is a device's reported status.
type Status string

// The statuses.
const (
	Running     Status = "RUNNING"
	Idle        Status = "IDLE"
	Blocked     Status = "BLOCKED"
	Fault       Status = "FAULT"
	Maintenance Status = "MAINTENANCE"
)

// Statuses lists the statuses in a fixed order.
var Statuses = []Status{Running, Idle, Blocked, Fault, Maintenance}

// FaultCode names the cause of a FAULT; it is empty for every other
// status.
type FaultCode string

// The fault codes.
const (
	EMotor   FaultCode = "E-MOTOR"
	ESensor  FaultCode = "E-SENSOR"
	EJam     FaultCode = "E-JAM"
	EBattery FaultCode = "E-BATTERY"
	EComm    FaultCode = "E-COMM"
)

// FaultCodes lists the fault codes in a fixed order.
var FaultCodes = []FaultCode{EMotor, ESensor, EJam, EBattery, EComm}

// Zone is an area of the warehouse.
type Zone struct {
	ID   string `json:"zone_id"` // zone-NN
	Name string `json:"name"`
}

// Device is one piece of equipment, in one zone.
type Device struct {
	ID     string     `json:"device_id"` // dev-NNNN
	Type   DeviceType `json:"device_type"`
	ZoneID string     `json:"zone_id"`
	Name   string     `json:"name"`
}

// Event is one status report. Generate reuses one Event for every call
// of its callback; copy it to keep it.
type Event struct {
	Seq int // 1-based position in time order; EventID formats it
	// IDDigits is how many digits EventID pads Seq to: 8, or 9 for a
	// dataset of more than 99,999,999 events (so every id of one dataset
	// has one width, and bytewise order is time order).
	IDDigits          int
	Device            *Device
	Unix              int64 // seconds since the Unix epoch
	Status            Status
	BatteryPct        int       // 0 to 100; always 100 for fixed equipment
	TemperatureTenths int       // temperature in tenths of a degree Celsius
	FaultCode         FaultCode // "" unless Status is FAULT
}

// EventID is the event's id, wh-evt- and IDDigits digits (8 when unset).
func (e *Event) EventID() string { return string(e.AppendEventID(nil)) }

// AppendEventID appends the event's id to b.
func (e *Event) AppendEventID(b []byte) []byte {
	b = append(b, "wh-evt-"...)
	return appendPadded(b, e.Seq, max(e.IDDigits, 8))
}

// Timestamp is the event's time, in UTC.
func (e *Event) Timestamp() time.Time { return time.Unix(e.Unix, 0).UTC() }

// AppendTS appends the event's time in RFC 3339 (UTC, seconds) to b.
func (e *Event) AppendTS(b []byte) []byte {
	return time.Unix(e.Unix, 0).UTC().AppendFormat(b, time.RFC3339)
}

// TemperatureC is the temperature in degrees Celsius (one decimal).
func (e *Event) TemperatureC() float64 { return float64(e.TemperatureTenths) / 10 }

// AppendTemperature appends the temperature with exactly one decimal.
func (e *Event) AppendTemperature(b []byte) []byte {
	t := e.TemperatureTenths
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t/10), 10)
	b = append(b, '.')
	return append(b, byte('0'+t%10))
}

func appendPadded(b []byte, n, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// Options sizes a generated dataset.
type Options struct {
	Seed uint64
	// Version is the dataset version to report; "" derives it from the
	// other options (see DatasetVersion).
	Version string
	Zones   int // 1 to MaxZones
	Devices int // 1 to MaxDevices
	Events  int // 0 to MaxEvents
	// Start is the instant the simulated period begins, a whole second.
	Start time.Time
	// Days is the simulated period's length: dwell times are scaled so
	// that Events events take about that long, though the last events may
	// fall a little before or after its end.
	Days int // 1 to MaxDays
}

// DefaultOptions are the options of the warehouse demo.
func DefaultOptions() Options {
	return Options{
		Seed:  20260105,
		Zones: 6, Devices: 40, Events: 20_000,
		Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), Days: 7,
	}
}

// DatasetVersion is the dataset version of what o generates: o.Version
// when set; DemoVersion for the default options; otherwise a name spelling
// out each option, such as warehouse-gen-s7-e1000-z3-dv12-d2 (seed,
// events, zones, devices, days, then -tYYYYMMDDThhmmssZ when the start is
// not the default's), so two different datasets never share a version.
func (o Options) DatasetVersion() string {
	if o.Version != "" {
		return o.Version
	}
	def := DefaultOptions()
	if o.Seed == def.Seed && o.Events == def.Events && o.Zones == def.Zones &&
		o.Devices == def.Devices && o.Days == def.Days && o.Start.Equal(def.Start) {
		return DemoVersion
	}
	v := fmt.Sprintf("warehouse-gen-s%d-e%d-z%d-dv%d-d%d", o.Seed, o.Events, o.Zones, o.Devices, o.Days)
	if !o.Start.Equal(def.Start) {
		v += "-t" + o.Start.UTC().Format("20060102T150405Z")
	}
	return v
}

// OptionError reports an out-of-range option. Field is the option's name
// in lower case (version, zones, devices, events, start, days).
type OptionError struct {
	Field, Reason string
}

func (e *OptionError) Error() string { return e.Field + " " + e.Reason }

// Validate reports the first out-of-range option as an *OptionError.
func (o Options) Validate() error {
	switch {
	case o.Zones < 1 || o.Zones > MaxZones:
		return &OptionError{"zones", fmt.Sprintf("must be 1 to %d", MaxZones)}
	case o.Devices < 1 || o.Devices > MaxDevices:
		return &OptionError{"devices", fmt.Sprintf("must be 1 to %d", MaxDevices)}
	case o.Events < 0 || o.Events > MaxEvents:
		return &OptionError{"events", fmt.Sprintf("must be 0 to %d", MaxEvents)}
	case o.Days < 1 || o.Days > MaxDays:
		return &OptionError{"days", fmt.Sprintf("must be 1 to %d", MaxDays)}
	case o.Start.IsZero() || o.Start.Year() < 2000 || o.Start.Year() > 9000:
		return &OptionError{"start", "must be a date in the years 2000 to 9000"}
	case o.Start.Nanosecond() != 0:
		return &OptionError{"start", "must be a whole second"}
	case len(o.DatasetVersion()) > 64:
		return &OptionError{"version", "must be given: the name derived from the options is over 64 characters"}
	}
	return nil
}

func stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

var zoneNames = []string{"Inbound Dock", "Bulk Storage", "Pick Face", "Packing", "Sortation", "Outbound Dock", "Returns", "Mezzanine", "Cold Store", "Cross Dock"}

var typeNames = map[DeviceType]string{AGV: "AGV", Conveyor: "Conveyor", Sorter: "Sorter", Lift: "Lift"}

// Layout returns the zones and devices that o generates. Every zone has a
// device when there are at least as many devices as zones.
func Layout(o Options) ([]Zone, []Device, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, fmt.Errorf("generate layout: %w", err)
	}
	zones, devices, _ := layout(o)
	return zones, devices, nil
}

// layout also returns each zone's ambient temperature in degrees.
func layout(o Options) ([]Zone, []Device, []float64) {
	r := stream(o.Seed, "layout")
	zones := make([]Zone, o.Zones)
	ambient := make([]float64, o.Zones)
	for i := range zones {
		name := zoneNames[i%len(zoneNames)]
		if i >= len(zoneNames) {
			name = fmt.Sprintf("%s %d", name, i/len(zoneNames)+1)
		}
		zones[i] = Zone{ID: fmt.Sprintf("zone-%02d", i+1), Name: name}
		ambient[i] = 16 + float64(r.IntN(81))/10 // 16.0 to 24.0
		if strings.HasPrefix(name, "Cold Store") {
			ambient[i] = 4 + float64(r.IntN(21))/10
		}
	}
	devices := make([]Device, o.Devices)
	count := map[DeviceType]int{}
	for i := range devices {
		typ := pick(r, DeviceTypes, []int{50, 20, 15, 15})
		z := i
		if i >= o.Zones {
			z = r.IntN(o.Zones)
		}
		count[typ]++
		devices[i] = Device{
			ID:     fmt.Sprintf("dev-%04d", i+1),
			Type:   typ,
			ZoneID: zones[z].ID,
			Name:   fmt.Sprintf("%s %d (%s)", typeNames[typ], count[typ], zones[z].Name),
		}
	}
	return zones, devices, ambient
}

func pick[T any](r *rand.Rand, vals []T, weights []int) T {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return vals[i]
		}
		n -= w
	}
	return vals[len(vals)-1]
}
