// Package backend is what locktable reads from and writes to a table set,
// as values: pages and their cursors, what a search found, what a lookup
// for holders found, prepared transactions, and what the backend can do.
// It has no AWS SDK in it, so that the terminal UI and the write flow
// speak the domain: package dynamo fills these values from DynamoDB, and
// the UI's in-memory backend from maps.
package backend

import (
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/locktable/locktable/model"
)

// Cursor is where a paged read goes on: for reads that span tables, which
// table, and the key the last call ended on (DynamoDB's LastEvaluatedKey),
// or for a backend that pages by position, the position. The zero Cursor
// is the start. Callers keep it as a value and hand it back; only the
// store that made it reads it.
type Cursor struct {
	table int
	key   model.Item
	pos   int
	done  bool
}

// Within is the cursor of a read that goes on in table number t after key
// (the start of t when key is empty).
func Within(t int, key model.Item) Cursor { return Cursor{table: t, key: key} }

// End is the cursor of a read that has nothing more.
func End() Cursor { return Cursor{done: true} }

// At is the cursor of a backend that pages by position, such as the
// terminal UI's in-memory one: the next page starts at item pos, and done
// says there is none.
func At(pos int, done bool) Cursor { return Cursor{pos: pos, done: done} }

// Done reports whether the read has nothing more.
func (c Cursor) Done() bool { return c.done }

// Table is the number of the table the read goes on in (see Within).
func (c Cursor) Table() int { return c.table }

// Key is the key the read goes on after (see Within); nil at a table's
// start.
func (c Cursor) Key() model.Item { return c.key }

// Pos is the position an At cursor was made with.
func (c Cursor) Pos() int { return c.pos }

// BrowseLimit is the Limit of one browsing call: a few hundred items come
// back in milliseconds, where a 1 MB page can take a second.
const BrowseLimit = 300

// AccountPage is one page of accounts with their locks.
type AccountPage struct {
	Accounts []model.AccountView
	Next     Cursor
}

// LockPage is one page of lock items.
type LockPage struct {
	Locks []model.Lock
	Next  Cursor
}

// Tx is a planned transaction ready to send: the plan, its token, the
// request that will be sent, and the request in words. Previews render
// Slots and the request's text, and the store that prepared it sends the
// same value.
type Tx struct {
	Plan  model.Plan
	Token string // the ClientRequestToken it is sent with
	// Slots says each action of the request in words, one sentence for
	// each condition its ConditionExpression carries, built from the very
	// conditions that expression was built from.
	Slots   []model.Slot
	Request Request
}

// Request is a prepared transaction as its store will send it: opaque but
// for its text.
type Request interface {
	// CLIInput is the request as `aws dynamodb transact-write-items
	// --cli-input-json` reads it, token included.
	CLIInput() ([]byte, error)
}

// NewToken returns a fresh ClientRequestToken.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ErrReadOnly is returned by every write of a store that may not write.
var ErrReadOnly = errors.New("writes are disabled: this store is read-only")

// Repair is one problem and what to do about it: a plan, or why it is left
// to a person.
type Repair struct {
	Problem model.Problem
	Plan    model.Plan
	Skip    string // non-empty: not repaired automatically, and why
}

// SkipGone is why a repair is skipped when consistent reads no longer show
// its problem.
const SkipGone = "no longer shows in consistent reads: already fixed, or fixed by someone else"

// SweepProgress is how far a read of every account (Pages'
// AccountsSweep) has gone: the items read, the pages they came in, the
// read capacity they consumed, the table's approximate item count (0:
// unknown), and how long it has run, in milliseconds.
type SweepProgress struct {
	Items  int64
	Pages  int
	RCU    float64
	Approx int64
	Millis int64
}

// Left estimates how many milliseconds the read has left from the share
// of the approximate item count read so far; false when it cannot tell
// (no count, nothing read yet, or the count passed).
func (p SweepProgress) Left() (int64, bool) {
	if p.Approx <= 0 || p.Items <= 0 || p.Items >= p.Approx {
		return 0, false
	}
	return p.Millis * (p.Approx - p.Items) / p.Items, true
}
