package uitest

import (
	"maps"
	"slices"
	"sync"

	"github.com/locktable/locktable/model"
)

// Control is what a test sets of the fake's behaviour and reads of what
// the UI asked of it. It is safe for concurrent use.
type Control struct {
	mu          sync.Mutex
	writable    bool
	calls       map[string]int
	failures    map[string]error
	held        func() // what a write waits for (HoldWrites)
	lost, leaks int    // see LoseWrites, LeakCancelled
	race        string
	raced       model.Item // ChangeAfterRead's item, to store in table race
	tokens      []string   // of every write that arrived
}

func (c *Control) lock() (unlock func()) { c.mu.Lock(); return c.mu.Unlock }

// SetWritable allows or forbids writes; Writable reports which.
func (c *Control) SetWritable(ok bool) { defer c.lock()(); c.writable = ok }
func (c *Control) Writable() bool      { defer c.lock()(); return c.writable }

// Calls returns how many times the UI called method.
func (c *Control) Calls(method string) int { defer c.lock()(); return c.calls[method] }

// Fail makes every later call of method (AccountsPage, LocksPage, Check,
// or Execute: not sent) fail with err; nil makes them succeed again.
func (c *Control) Fail(method string, err error) { defer c.lock()(); c.failures[method] = err }

// HoldWrites makes every later Execute wait, as a slow network would,
// until release is called; arrived is closed once one is waiting.
func (c *Control) HoldWrites() (arrived <-chan struct{}, release func()) {
	defer c.lock()()
	hold, came := make(chan struct{}), make(chan struct{})
	arrive := sync.OnceFunc(func() { close(came) })
	c.held = func() { arrive(); <-hold }
	return came, sync.OnceFunc(func() { close(hold) })
}

// LoseWrites makes the next n writes get lost on the way: nothing is
// applied, and the outcome is unknown, as when no answer comes.
func (c *Control) LoseWrites(n int) { defer c.lock()(); c.lost = n }

// LeakCancelled makes the next n cancelled transactions apply the actions
// whose own conditions held all the same, as a backend whose transactions
// are not isolated (moto's server under load) does. The outcome is still
// cancelled, slot by slot.
func (c *Control) LeakCancelled(n int) { defer c.lock()(); c.leaks = n }

// ChangeAfterRead makes another writer store it in table right after the
// next read of its key, which still answers the item as it was: a write
// landing between two consistent reads of a caller.
func (c *Control) ChangeAfterRead(table string, it model.Item) {
	defer c.lock()()
	c.race, c.raced = table, maps.Clone(it)
}

// Tokens returns the ClientRequestToken of every write that arrived.
func (c *Control) Tokens() []string { defer c.lock()(); return slices.Clone(c.tokens) }

// called counts a call of method, and returns the error it is to fail with.
func (c *Control) called(method string) error {
	defer c.lock()()
	c.calls[method]++
	return c.failures[method]
}

// raceAt returns ChangeAfterRead's item, once, when it is table's item at
// the key is names; nil otherwise.
func (c *Control) raceAt(table string, is func(model.Item) bool) (raced model.Item) {
	defer c.lock()()
	if c.raced != nil && c.race == table && is(c.raced) {
		raced, c.raced = c.raced, nil
	}
	return raced
}

// wait holds a write while HoldWrites says so.
func (c *Control) wait() {
	c.mu.Lock()
	held := c.held
	c.mu.Unlock()
	if held != nil {
		held()
	}
}

// sent records the token of a write that arrived, and says whether it is
// lost (LoseWrites).
func (c *Control) sent(token string) (lost bool) {
	defer c.lock()()
	c.tokens = append(c.tokens, token)
	lost, c.lost = c.lost > 0, max(c.lost-1, 0)
	return lost
}

// leak says whether a cancelled transaction leaks (LeakCancelled).
func (c *Control) leak() (ok bool) {
	defer c.lock()()
	ok, c.leaks = c.leaks > 0, max(c.leaks-1, 0)
	return ok
}
