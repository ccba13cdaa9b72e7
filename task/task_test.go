package task_test

import (
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/task"
)

func req() task.Request {
	return task.Request{Tool: "open_restock_task", Kind: "restock",
		Subject: map[string]string{"store_id": "st-003", "product_id": "pr-007"}, Quantity: 3, Key: "k-1"}
}

func TestID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.StringMatching(task.KeyPattern[1:len(task.KeyPattern)-1]).Draw(t, "key")
		id := task.ID(k)
		if !task.ValidID(id) {
			t.Fatalf("ID(%q) = %q does not match %s", k, id, task.IDPattern)
		}
		if task.ID(k) != id {
			t.Fatalf("ID is not a function of the key")
		}
	})
	if task.ID("a") == task.ID("b") {
		t.Error("two keys, one id")
	}
}

func TestRequest(t *testing.T) {
	a, b := req(), req()
	b.Subject = map[string]string{"product_id": "pr-007", "store_id": "st-003"}
	b.Session, b.Approver = "s", "alice"
	if a.ArgsHash() != b.ArgsHash() || !a.Task().Same(b) {
		t.Error("the same arguments hash apart (or who asked counts)")
	}
	for name, mut := range map[string]func(*task.Request){
		"quantity": func(r *task.Request) { r.Quantity = 4 },
		"subject":  func(r *task.Request) { r.Subject = map[string]string{"store_id": "st-004", "product_id": "pr-007"} },
		"kind":     func(r *task.Request) { r.Kind = "recount" },
		"tool":     func(r *task.Request) { r.Tool = "open_work_order" },
	} {
		c := req()
		mut(&c)
		if c.ArgsHash() == a.ArgsHash() || a.Task().Same(c) {
			t.Errorf("%s: other arguments, the same hash", name)
		}
	}
	for name, mut := range map[string]func(*task.Request){
		"key":      func(r *task.Request) { r.Key = "bad key" },
		"quantity": func(r *task.Request) { r.Quantity = 0 },
		"subject":  func(r *task.Request) { r.Subject = nil },
		"tool":     func(r *task.Request) { r.Tool = "Open" },
	} {
		c := req()
		mut(&c)
		if err := c.Validate(); !errors.Is(err, task.ErrInvalid) {
			t.Errorf("%s: Validate = %v; want ErrInvalid", name, err)
		}
	}
}
