package phrase_test

import (
	"fmt"

	"github.com/provenant/provenant/phrase"
)

func Example() {
	p, _ := phrase.Compile("what('s| is) the status of {device_id} (as of|at) {as_of}")
	args, ok := p.Match("What's the status of dev-0042 as of 2026-01-06T08:00:00Z?")
	fmt.Println(ok, args["device_id"], args["as_of"])

	t, _ := phrase.ParseTemplate("{count:device needs|devices need} attention as of {as_of}: {ids}.")
	fmt.Println(t.Render(phrase.Fill{Args: args, IDs: []string{"dev-0007", "dev-0042"}, Count: 2}))
	// Output:
	// true dev-0042 2026-01-06T08:00:00Z
	// 2 devices need attention as of 2026-01-06T08:00:00Z: dev-0007, dev-0042.
}
