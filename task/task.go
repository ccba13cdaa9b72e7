// Package task is the one write the engine makes: appending a task row
// (a restock task for a (store, product), a maintenance work order for a
// device) to a declared tasks table, idempotent under a client-supplied
// request key.
//
// A request key names one task for ever: the same key with the same
// arguments returns the task it opened the first time (and opens no
// second row); the same key with other arguments is refused
// (ErrKeyReused), naming nothing the client sent. A task's id is derived
// from its key alone (ID), so every replica agrees on it.
//
// Store is what the engine needs of a table; package task/sqlstore keeps
// one in DuckDB or PostgreSQL through database/sql. The package imports
// only the standard library.
package task

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
)

// IDPattern is what every task id matches: letters only after the
// prefix, so that no digit of an id reads as a numeral in a sentence.
const IDPattern = `^task-[a-p]{20}$`

// KeyPattern is what a request key matches.
const KeyPattern = `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`

var (
	idRe  = regexp.MustCompile(IDPattern)
	keyRe = regexp.MustCompile(KeyPattern)
	name  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// The sentinels.
var (
	// ErrKeyReused: a request key already names a task with other
	// arguments.
	ErrKeyReused = errors.New("request key already used with other arguments")
	// ErrNotFound: no task has the id.
	ErrNotFound = errors.New("no such task")
	// ErrInvalid: a request that is not well formed.
	ErrInvalid = errors.New("invalid task request")
)

// Request asks for one task.
type Request struct {
	Tool string // the write tool that appends it
	Kind string // the task's kind ("restock")
	// Subject maps each entity's parameter (store_id) to its id.
	Subject  map[string]string
	Quantity int64
	Key      string // the client's request key
	// Session and Approver record under whose grant the task was
	// opened; Approver is a human's name, never a model's.
	Session  string
	Approver string
}

// Task is one row of the tasks table.
type Task struct {
	ID       string
	Key      string
	Tool     string
	Kind     string
	Subject  map[string]string
	Quantity int64
	// ArgsHash is the SHA-256 (hex) of the arguments the key stands
	// for (ArgsHash).
	ArgsHash string
	Session  string
	Approver string
}

// Validate checks a request's form.
func (r Request) Validate() error {
	switch {
	case !name.MatchString(r.Tool), !name.MatchString(r.Kind):
		return fmt.Errorf("%w: tool or kind", ErrInvalid)
	case len(r.Subject) == 0:
		return fmt.Errorf("%w: no subject", ErrInvalid)
	case r.Quantity < 1:
		return fmt.Errorf("%w: quantity", ErrInvalid)
	case !keyRe.MatchString(r.Key):
		return fmt.Errorf("%w: request key: want a value matching %s", ErrInvalid, KeyPattern)
	}
	for k := range r.Subject {
		if !name.MatchString(k) {
			return fmt.Errorf("%w: subject", ErrInvalid)
		}
	}
	return nil
}

// ID returns the id of the task a request key names: "task-" and the
// first 20 hex digits of SHA-256("task\x00" + key), each written as a
// letter (0 as a, ..., f as p).
func ID(key string) string {
	sum := sha256.Sum256([]byte("task\x00" + key))
	h := []byte(hex.EncodeToString(sum[:10]))
	for i, c := range h {
		if c <= '9' {
			h[i] = 'a' + (c - '0')
		} else {
			h[i] = 'a' + 10 + (c - 'a')
		}
	}
	return "task-" + string(h)
}

// ValidID reports whether id is spelt as a task id.
func ValidID(id string) bool { return idRe.MatchString(id) }

// ArgsHash is the SHA-256 (hex) of what a key stands for: the tool, the
// kind, the subject and the quantity, as JSON with sorted keys.
func (r Request) ArgsHash() string {
	keys := slices.Sorted(maps.Keys(r.Subject))
	subj := make([][2]string, len(keys))
	for i, k := range keys {
		subj[i] = [2]string{k, r.Subject[k]}
	}
	b, _ := json.Marshal([]any{r.Tool, r.Kind, subj, strconv.FormatInt(r.Quantity, 10)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Task returns the row a request opens.
func (r Request) Task() Task {
	return Task{ID: ID(r.Key), Key: r.Key, Tool: r.Tool, Kind: r.Kind, Subject: maps.Clone(r.Subject),
		Quantity: r.Quantity, ArgsHash: r.ArgsHash(), Session: r.Session, Approver: r.Approver}
}

// Same reports whether t is what r asks for (the arguments, not who
// asked).
func (t Task) Same(r Request) bool {
	return t.ArgsHash == r.ArgsHash() && t.Tool == r.Tool && t.Kind == r.Kind &&
		t.Quantity == r.Quantity && maps.Equal(t.Subject, r.Subject)
}

// Store keeps the tasks table.
type Store interface {
	// Append opens the task r asks for, or returns the one its key
	// opened before (created false); ErrKeyReused when that one was
	// opened with other arguments. Concurrent appends of one key open
	// one row.
	Append(ctx context.Context, r Request) (t Task, created bool, err error)
	// Get returns the task with id, or ErrNotFound.
	Get(ctx context.Context, id string) (Task, error)
}
