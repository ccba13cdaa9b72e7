package strictjson_test

import (
	"fmt"

	"github.com/provenant/provenant/internal/strictjson"
)

func ExampleDecode() {
	var req struct {
		Question *string `json:"question"`
	}
	for _, body := range []string{
		`{"question": "What is the price?"}`,
		`{"question": "a", "question": "b"}`,
		`{"QUESTION": "a"}`,
		`{"question": "a", "client-chosen key": 1}`,
		`{"question": 5}`,
	} {
		if err := strictjson.Decode([]byte(body), &req, nil); err != nil {
			fmt.Println(strictjson.CodeOf(err), strictjson.Message(err, "could not decode"))
			continue
		}
		fmt.Println("ok", *req.Question)
	}
	// Output:
	// ok What is the price?
	// duplicate_field $.question: field appears more than once
	// unknown_field $.#0: unknown field
	// unknown_field $.#1: unknown field
	// wrong_type $.question: want a string
}
