package demo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// Status and type indices into the model's tables, in the order of
// Statuses and DeviceTypes.
const (
	sRunning = iota
	sIdle
	sBlocked
	sFault
	sMaintenance
	nStatus
)

const (
	tAGV = iota
	tConveyor
	tSorter
	tLift
	nType
)

// transition[type][from] are the weights of the next status, in the order
// of Statuses. A self-transition is a periodic report in the same status.
var transition = [nType][nStatus][nStatus]float64{
	tAGV: {
		sRunning:     {15, 45, 30, 4, 1},
		sIdle:        {80, 14, 0, 1, 5},
		sBlocked:     {70, 20, 5, 5, 0},
		sFault:       {10, 30, 0, 0, 60},
		sMaintenance: {20, 75, 0, 2, 3},
	},
	tConveyor: {
		sRunning:     {50, 25, 20, 4, 1},
		sIdle:        {85, 10, 2, 1, 2},
		sBlocked:     {75, 10, 10, 5, 0},
		sFault:       {15, 20, 0, 0, 65},
		sMaintenance: {40, 55, 0, 2, 3},
	},
	tSorter: {
		sRunning:     {45, 25, 24, 5, 1},
		sIdle:        {85, 10, 2, 1, 2},
		sBlocked:     {70, 10, 12, 8, 0},
		sFault:       {15, 20, 0, 0, 65},
		sMaintenance: {40, 55, 0, 2, 3},
	},
	tLift: {
		sRunning:     {20, 65, 10, 4, 1},
		sIdle:        {80, 15, 1, 1, 3},
		sBlocked:     {70, 20, 5, 5, 0},
		sFault:       {10, 25, 0, 0, 65},
		sMaintenance: {30, 65, 0, 2, 3},
	},
}

// dwellWeight is the relative mean time spent in each status; the
// generator scales it so that Events events span about Days.
var dwellWeight = [nStatus]float64{sRunning: 3, sIdle: 2, sBlocked: 0.5, sFault: 1.5, sMaintenance: 4}

// faultWeight[type] weighs the fault codes, in the order of FaultCodes.
// Only AGVs run on batteries.
var faultWeight = [nType][]int{
	tAGV:      {25, 30, 5, 10, 30},
	tConveyor: {35, 20, 35, 0, 10},
	tSorter:   {20, 30, 40, 0, 10},
	tLift:     {40, 30, 10, 0, 20},
}

// heat is how far above ambient a running device settles, in degrees.
var heat = [nType]float64{tAGV: 14, tConveyor: 18, tSorter: 22, tLift: 16}

// Battery rates of an AGV in percent per hour, by status: negative
// drains, positive charges.
var batteryRate = [nStatus]float64{sRunning: -12, sIdle: 25, sBlocked: -4, sFault: -1, sMaintenance: 30}

const (
	lowBattery     = 25.0  // below it a running AGV prefers to go and charge
	criticalBatt   = 10.0  // below it a fault is most likely E-BATTERY
	thermalTauSecs = 900.0 // how quickly a device's temperature settles
)

func typeIndex(t DeviceType) int {
	for i, d := range DeviceTypes {
		if d == t {
			return i
		}
	}
	return 0
}

// targetTemp is the temperature a device in status s settles toward.
func targetTemp(typ, s int, ambient float64) float64 {
	switch s {
	case sRunning:
		return ambient + heat[typ]
	case sBlocked:
		return ambient + float64(heat[typ]*1.4)
	case sFault:
		return ambient + float64(heat[typ]*0.5)
	}
	return ambient
}

// meanRelativeDwell is the long-run mean of dwellWeight under a type's
// chain, found by iterating the chain from a uniform start.
func meanRelativeDwell(typ int) float64 {
	var p [nStatus]float64
	for i := range p {
		p[i] = 1.0 / nStatus
	}
	for range 200 {
		var q [nStatus]float64
		for from := range nStatus {
			total := 0.0
			for _, w := range transition[typ][from] {
				total += w
			}
			for to, w := range transition[typ][from] {
				q[to] += p[from] * w / total
			}
		}
		p = q
	}
	m := 0.0
	for s := range nStatus {
		m += float64(p[s] * dwellWeight[s])
	}
	return m
}

type deviceState struct {
	dev     *Device
	typ     int
	ambient float64
	rng     *rand.Rand
	unit    float64 // seconds per unit of dwellWeight
	status  int
	fault   FaultCode
	battery float64
	temp    float64
	last    int64 // seconds since start of the last report; -1 before the first
	next    int64 // seconds since start of the next report
}

// Generate produces the events that o describes, in time order, calling
// emit once per event with an Event that it reuses (copy it to keep it).
// It stops at the first error from emit or when ctx is done, returning
// that error. Memory does not grow with o.Events.
func Generate(ctx context.Context, o Options, emit func(*Event) error) error {
	if err := o.Validate(); err != nil {
		return fmt.Errorf("generate events: %w", err)
	}
	_, devices, ambient := layout(o)
	zoneIndex := make(map[string]int, o.Zones)
	for i := range o.Zones {
		zoneIndex[fmt.Sprintf("zone-%02d", i+1)] = i
	}
	var relDwell [nType]float64
	for t := range nType {
		relDwell[t] = meanRelativeDwell(t)
	}
	span := float64(o.Days) * 86400
	perDevice := float64(o.Events) / float64(o.Devices) // events each device reports over the span
	if perDevice < 1 {
		perDevice = 1
	}
	states := make([]deviceState, len(devices))
	h := make(deviceHeap, 0, len(devices))
	for i := range devices {
		d := &devices[i]
		typ := typeIndex(d.Type)
		s := &states[i]
		*s = deviceState{
			dev: d, typ: typ, ambient: ambient[zoneIndex[d.ZoneID]],
			rng:  stream(o.Seed, "device/"+d.ID),
			unit: span / perDevice / relDwell[typ],
			last: -1,
		}
		s.status = pickIndex(s.rng, []float64{30, 60, 0, 0, 10})
		s.battery = 100
		if typ == tAGV {
			s.battery = float64(40 + s.rng.IntN(61))
		}
		s.temp = s.ambient
		if s.status == sRunning {
			s.temp = s.ambient + float64(heat[typ]*0.5)
		}
		// The first report falls somewhere in the device's first dwell.
		s.next = int64(s.rng.Float64() * s.unit * dwellWeight[s.status])
		h.push(states, i)
	}

	var ev Event
	start := o.Start.Unix()
	digits := idDigits(o.Events)
	for n := 1; n <= o.Events; n++ {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i := h.pop(states)
		s := &states[i]
		now := s.next
		if s.last >= 0 {
			s.step(now - s.last)
		}
		s.last = now
		ev = Event{
			Seq:               n,
			IDDigits:          digits,
			Device:            s.dev,
			Unix:              start + now,
			Status:            Statuses[s.status],
			BatteryPct:        int(math.Round(s.battery)),
			TemperatureTenths: int(math.Round(s.temp * 10)),
			FaultCode:         s.fault,
		}
		if s.typ != tAGV {
			ev.BatteryPct = 100
		}
		if err := emit(&ev); err != nil {
			return err
		}
		dwell := int64(math.Round(s.rng.ExpFloat64() * s.unit * dwellWeight[s.status]))
		s.next = now + max(dwell, 1)
		h.push(states, i)
	}
	return ctx.Err()
}

// step evolves a device over dt seconds spent in its current status, then
// moves it to its next status.
func (s *deviceState) step(dt int64) {
	secs := float64(dt)
	// Temperature relaxes toward the status's target (an implicit Euler
	// step: no transcendental functions, and the float64 conversions keep
	// a compiler from fusing multiply-adds, so every platform computes the
	// same bits), with a little sensor noise.
	target := targetTemp(s.typ, s.status, s.ambient)
	k := secs / (secs + thermalTauSecs)
	s.temp += float64((target - s.temp) * k)
	s.temp += float64((s.rng.Float64() - 0.5) * 0.4)

	forcedBattery := false
	if s.typ == tAGV {
		s.battery += batteryRate[s.status] * secs / 3600 // a quotient: never fused
		if s.battery <= 0 {
			s.battery = 0
			forcedBattery = s.status == sRunning
		}
		if s.battery > 100 {
			s.battery = 100
		}
	}

	w := transition[s.typ][s.status]
	if s.typ == tAGV && s.battery < lowBattery && (s.status == sRunning || s.status == sBlocked) {
		// Head for the charger; a few fail on the way.
		w[sIdle] *= 4
		w[sFault] *= 3
		w[sRunning] /= 4
	}
	if s.typ == tAGV && s.battery < criticalBatt {
		w[sRunning] = 0
	}
	next := pickIndex(s.rng, w[:])
	if forcedBattery {
		next = sFault
	}
	s.fault = ""
	if next == sFault {
		fw := faultWeight[s.typ]
		code := FaultCodes[pickWeighted(s.rng, fw)]
		if s.typ == tAGV && (forcedBattery || s.battery < criticalBatt && s.rng.IntN(5) != 0) {
			code = EBattery
		}
		s.fault = code
	}
	s.status = next
}

func pickIndex(r *rand.Rand, weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := r.Float64() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	for i := len(weights) - 1; i >= 0; i-- {
		if weights[i] > 0 {
			return i
		}
	}
	return 0
}

func pickWeighted(r *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// deviceHeap is a min-heap of device indices ordered by (next, index):
// the device that reports next, ties going to the lower device id.
type deviceHeap []int

func (h deviceHeap) less(st []deviceState, a, b int) bool {
	x, y := st[h[a]].next, st[h[b]].next
	if x != y {
		return x < y
	}
	return h[a] < h[b]
}

func (h *deviceHeap) push(st []deviceState, i int) {
	*h = append(*h, i)
	j := len(*h) - 1
	for j > 0 {
		p := (j - 1) / 2
		if !h.less(st, j, p) {
			break
		}
		(*h)[j], (*h)[p] = (*h)[p], (*h)[j]
		j = p
	}
}

func (h *deviceHeap) pop(st []deviceState) int {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	j := 0
	for {
		l := 2*j + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last && h.less(st, r, l) {
			m = r
		}
		if !h.less(st, m, j) {
			break
		}
		(*h)[j], (*h)[m] = (*h)[m], (*h)[j]
		j = m
	}
	return top
}

// idDigits is the width of the event ids of a dataset of n events: 8
// digits up to 99,999,999, else 9.
func idDigits(n int) int {
	if n > 99_999_999 {
		return 9
	}
	return 8
}
