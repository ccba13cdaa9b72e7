package demo

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// EventColumns are the event files' columns, in order: the CSV header and
// the JSON Lines keys.
var EventColumns = []string{"event_id", "device_id", "device_type", "zone_id", "ts", "status", "battery_pct", "temperature_c", "fault_code"}

// WriteJSONL generates the events of o and writes them to w as JSON Lines,
// one object per line with the keys of EventColumns in that order, each
// row as soon as it is generated.
func WriteJSONL(ctx context.Context, w io.Writer, o Options) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b []byte
	err := Generate(ctx, o, func(e *Event) error {
		b = appendJSONL(b[:0], e)
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	return nil
}

// appendJSONL appends e as one JSON line. Every string in it is an id, an
// enumerated value or a timestamp, none of which needs escaping.
func appendJSONL(b []byte, e *Event) []byte {
	b = append(b, `{"event_id":"`...)
	b = e.AppendEventID(b)
	b = append(b, `","device_id":"`...)
	b = append(b, e.Device.ID...)
	b = append(b, `","device_type":"`...)
	b = append(b, e.Device.Type...)
	b = append(b, `","zone_id":"`...)
	b = append(b, e.Device.ZoneID...)
	b = append(b, `","ts":"`...)
	b = e.AppendTS(b)
	b = append(b, `","status":"`...)
	b = append(b, e.Status...)
	b = append(b, `","battery_pct":`...)
	b = strconv.AppendInt(b, int64(e.BatteryPct), 10)
	b = append(b, `,"temperature_c":`...)
	b = e.AppendTemperature(b)
	b = append(b, `,"fault_code":"`...)
	b = append(b, e.FaultCode...)
	return append(b, "\"}\n"...)
}

// WriteCSV generates the events of o and writes them to w as CSV (RFC
// 4180, through encoding/csv): a header row of EventColumns, then one row
// per event as soon as it is generated.
func WriteCSV(ctx context.Context, w io.Writer, o Options) error {
	if err := o.Validate(); err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(EventColumns); err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	row := make([]string, len(EventColumns))
	var buf []byte
	err := Generate(ctx, o, func(e *Event) error {
		// One string for the row's formatted fields, sliced into columns.
		buf = e.AppendEventID(buf[:0])
		idEnd := len(buf)
		buf = e.AppendTS(buf)
		tsEnd := len(buf)
		buf = strconv.AppendInt(buf, int64(e.BatteryPct), 10)
		batEnd := len(buf)
		buf = e.AppendTemperature(buf)
		s := string(buf)
		row[0] = s[:idEnd]
		row[1] = e.Device.ID
		row[2] = string(e.Device.Type)
		row[3] = e.Device.ZoneID
		row[4] = s[idEnd:tsEnd]
		row[5] = string(e.Status)
		row[6] = s[tsEnd:batEnd]
		row[7] = s[batEnd:]
		row[8] = string(e.FaultCode)
		return cw.Write(row)
	})
	if err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	return nil
}

// WriteDevicesJSONL writes devices as JSON Lines with the keys device_id,
// device_type, zone_id and name.
func WriteDevicesJSONL(w io.Writer, devices []Device) error {
	return writeJSONL(w, "devices", devices)
}

// WriteZonesJSONL writes zones as JSON Lines with the keys zone_id and
// name.
func WriteZonesJSONL(w io.Writer, zones []Zone) error {
	return writeJSONL(w, "zones", zones)
}

func writeJSONL[T any](w io.Writer, what string, rows []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range rows {
		if err := enc.Encode(&rows[i]); err != nil {
			return fmt.Errorf("write %s: %w", what, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}

// WriteDevicesCSV writes devices as CSV with the header device_id,
// device_type, zone_id, name.
func WriteDevicesCSV(w io.Writer, devices []Device) error {
	rows := [][]string{{"device_id", "device_type", "zone_id", "name"}}
	for _, d := range devices {
		rows = append(rows, []string{d.ID, string(d.Type), d.ZoneID, d.Name})
	}
	if err := csv.NewWriter(w).WriteAll(rows); err != nil {
		return fmt.Errorf("write devices: %w", err)
	}
	return nil
}

// WriteZonesCSV writes zones as CSV with the header zone_id, name.
func WriteZonesCSV(w io.Writer, zones []Zone) error {
	rows := [][]string{{"zone_id", "name"}}
	for _, z := range zones {
		rows = append(rows, []string{z.ID, z.Name})
	}
	if err := csv.NewWriter(w).WriteAll(rows); err != nil {
		return fmt.Errorf("write zones: %w", err)
	}
	return nil
}

// FileNames are the files WriteDir writes: the events, devices and zones,
// each as JSON Lines and as CSV.
var FileNames = []string{"events.jsonl", "events.csv", "devices.jsonl", "devices.csv", "zones.jsonl", "zones.csv"}

// WriteDir writes every file of FileNames for o into dir, which must
// exist, replacing files of those names. A file is written under a
// temporary name and renamed when complete, so a failed or cancelled run
// never leaves a truncated file under a final name.
func WriteDir(ctx context.Context, dir string, o Options) error {
	zones, devices, err := Layout(o)
	if err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	writers := map[string]func(io.Writer) error{
		"events.jsonl":  func(w io.Writer) error { return WriteJSONL(ctx, w, o) },
		"events.csv":    func(w io.Writer) error { return WriteCSV(ctx, w, o) },
		"devices.jsonl": func(w io.Writer) error { return WriteDevicesJSONL(w, devices) },
		"devices.csv":   func(w io.Writer) error { return WriteDevicesCSV(w, devices) },
		"zones.jsonl":   func(w io.Writer) error { return WriteZonesJSONL(w, zones) },
		"zones.csv":     func(w io.Writer) error { return WriteZonesCSV(w, zones) },
	}
	for _, name := range FileNames {
		if err := writeFile(filepath.Join(dir, name), writers[name]); err != nil {
			return fmt.Errorf("write dataset: %w", err)
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
