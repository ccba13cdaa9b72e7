package demo_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/provenant/provenant/warehouse/demo"
)

// Example writes a small dataset's events as CSV, streaming.
func Example() {
	o := demo.Options{
		Seed: 7, Zones: 2, Devices: 3, Events: 4,
		Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), Days: 1,
	}
	if err := demo.WriteCSV(context.Background(), os.Stdout, o); err != nil {
		fmt.Println(err)
	}
	fmt.Println(o.DatasetVersion())
	// Output:
	// event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code
	// wh-evt-00000001,dev-0001,AGV,zone-01,2026-01-05T00:38:20Z,MAINTENANCE,61,20.6,
	// wh-evt-00000002,dev-0001,AGV,zone-01,2026-01-05T04:39:44Z,RUNNING,100,20.7,
	// wh-evt-00000003,dev-0002,LIFT,zone-02,2026-01-05T05:49:12Z,IDLE,100,21.9,
	// wh-evt-00000004,dev-0002,LIFT,zone-02,2026-01-05T05:53:06Z,RUNNING,100,22.1,
	// warehouse-gen-s7-e4-z2-dv3-d1
}

// ExampleGenerate counts a default demo's faults by code without writing
// anything: Generate hands each event to a callback as it is made.
func ExampleGenerate() {
	faults := map[demo.FaultCode]int{}
	err := demo.Generate(context.Background(), demo.DefaultOptions(), func(e *demo.Event) error {
		if e.Status == demo.Fault {
			faults[e.FaultCode]++
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	for _, c := range demo.FaultCodes {
		fmt.Println(c, faults[c])
	}
	// Output:
	// E-MOTOR 179
	// E-SENSOR 182
	// E-JAM 96
	// E-BATTERY 39
	// E-COMM 139
}

// ExampleLayout writes the reference tables of the default demo.
func ExampleLayout() {
	o := demo.DefaultOptions()
	zones, devices, err := demo.Layout(o)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := demo.WriteZonesCSV(os.Stdout, zones); err != nil {
		fmt.Println(err)
	}
	if err := demo.WriteDevicesJSONL(os.Stdout, devices[:2]); err != nil {
		fmt.Println(err)
	}
	// Output:
	// zone_id,name
	// zone-01,Inbound Dock
	// zone-02,Bulk Storage
	// zone-03,Pick Face
	// zone-04,Packing
	// zone-05,Sortation
	// zone-06,Outbound Dock
	// {"device_id":"dev-0001","device_type":"AGV","zone_id":"zone-01","name":"AGV 1 (Inbound Dock)"}
	// {"device_id":"dev-0002","device_type":"LIFT","zone_id":"zone-02","name":"Lift 1 (Bulk Storage)"}
}
