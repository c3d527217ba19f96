// Package seed writes sample accounts through the pattern and plants every
// kind of problem the way buggy code makes them: for the demo, tests and
// benchmarks (locktable seed).
package seed

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// seeder writes through a store.
type seeder struct {
	store *dynamo.Store
	sc    *model.Schema
	// electro writes ElectroDB's agents and constraints (--preset
	// electrodb:ENTITY) through Planner's signup.
	electro bool
}

// Options say what `locktable seed` writes.
type Options struct {
	Accounts  int  // healthy accounts, written through the pattern
	Anomalies bool // also plant problems the way buggy code would
	// Indexes creates the account table with a GSI per unique attribute,
	// named dynamo.IndexName(attr), so that --index can confirm ownerless orphans
	// without a second scan.
	Indexes bool
	// Progress, when set, is told how many healthy accounts are written so
	// far (from several goroutines, one call at a time).
	Progress func(written int) `json:"-"`
	// Showcase adds what the demo shows beyond the four repairable kinds:
	// an invalid_value, an account whose text tries terminal escapes and,
	// in a table with a sort key, items that are neither accounts nor
	// locks (two orders in the first account's partition, a setting).
	Showcase bool
}

// MaxAccounts is the most healthy accounts a seed writes. Sample
// accounts are numbered: ids and values are unique only while the numbers
// fit in 32 bits, and the renamed values the anomalies use (numbered from
// 1,000,000 past the accounts) stay clear of the planted accounts' own
// only up to about 30 million accounts.
const MaxAccounts = 10_000_000

// Result counts what a seed wrote.
type Result struct {
	Created      []string `json:"created"`       // tables created
	Accounts     int      `json:"accounts"`      // healthy accounts written (already present ones count)
	AnomalyCases int      `json:"anomaly_cases"` // planted cases, each one or more problems
}

// AnomaliesPerKind is how many cases of each problem kind a seed of n
// accounts plants: at least three (so that every variant appears), and
// about 1% of the accounts in problems for large tables.
func AnomaliesPerKind(n int) int { return max(3, n/250) }

// Run creates the schema's tables if they are missing and writes
// deterministic accounts through the pattern; with Anomalies it then plants
// every kind of problem. The same options write the same items, and a
// second run adds nothing.
func Run(ctx context.Context, store *dynamo.Store, o Options) (Result, error) {
	s := seeder{store: store, sc: &store.Schema, electro: strings.HasPrefix(store.Schema.Preset, model.LibElectroDB+":")}
	var res Result
	created, err := store.EnsureTables(ctx, o.Indexes)
	if err != nil {
		return res, err
	}
	res.Created = created
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	var mu sync.Mutex
	written := 0
	for i := range o.Accounts {
		id, attrs := s.sampleAccount(i)
		g.Go(func() error {
			if err := s.signup(gctx, id, attrs, true); err != nil {
				return err
			}
			if o.Progress != nil {
				mu.Lock()
				written++
				o.Progress(written)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	res.Accounts = o.Accounts
	if o.Anomalies && s.electro {
		res.AnomalyCases, err = s.plantElectro(ctx, o.Accounts)
		return res, err
	}
	if o.Anomalies {
		n, next, err := s.plant(ctx, o.Accounts)
		res.AnomalyCases = n
		if err != nil {
			return res, err
		}
		if o.Showcase {
			if err := s.showcase(ctx, next); err != nil {
				return res, err
			}
			if err := s.others(ctx); err != nil {
				return res, err
			}
			res.AnomalyCases += 2
		}
	}
	return res, nil
}

// sampleAccount returns the i-th deterministic account: its id and
// attributes, one plausible value per constraint.
func (s seeder) sampleAccount(i int) (id string, attrs map[string]string) {
	attrs = map[string]string{}
	for _, c := range s.sc.Constraints {
		attrs[c.Attr] = sampleValue(c.Attr, i)
	}
	if s.electro {
		return s.electroAgent(i, attrs), attrs
	}
	return sampleID(s.sc.AccountPrefix, i), attrs
}

// sampleID spreads ids over the key space (a bijection on uint32, so ids
// never collide) the way random ids would be.
func sampleID(prefix string, i int) string {
	h := uint32(i) * 2654435761
	if prefix == "" {
		return fmt.Sprintf("dev-%08x", h)
	}
	return fmt.Sprintf("%s%08x", prefix, h)
}

var sampleNames = []string{
	"ada", "alan", "grace", "edsger", "barbara", "donald", "margaret", "ken",
	"dennis", "frances", "john", "radia", "tim", "linus", "katherine",
	"claude", "hedy", "niklaus", "leslie", "sophie",
}

// sampleValue makes a value for attribute attr of account i that looks like
// what the attribute holds, unique per i.
func sampleValue(attr string, i int) string {
	name := sampleNames[i%len(sampleNames)]
	a := strings.ToLower(attr)
	switch {
	case strings.Contains(a, "mail"):
		return fmt.Sprintf("%s.%d@example.org", name, i)
	case strings.Contains(a, "mac"):
		return fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
	case strings.Contains(a, "code"):
		return fmt.Sprintf("RC-%08X", uint32(i)*2246822519)
	}
	return fmt.Sprintf("%s%d", name, i)
}

// accountItem builds the account item for id with attributes.
func (s seeder) accountItem(id string, attrs map[string]string) model.Item {
	it := model.KeyItem(s.sc.AccountKey(id))
	for k, v := range attrs {
		it[k] = model.S(v)
	}
	return it
}

// lockItem builds the lock item of constraint ci for value v, owned by
// owner when owner is not empty.
func (s seeder) lockItem(ci int, v, owner string) (table string, item model.Item) {
	table, key := s.sc.LockKey(ci, s.sc.Constraints[ci].Normalize.Apply(v))
	item = model.KeyItem(key)
	if owner != "" {
		item[s.sc.OwnerAttr] = model.S(owner)
	}
	return table, item
}

// signup writes an account and its locks in one guarded transaction: the
// very plan `locktable signup` sends. withOwner says whether the locks name
// their owner (the article's locks do not). An account already there is
// left as it is.
func (s seeder) signup(ctx context.Context, id string, attrs map[string]string, withOwner bool) error {
	plan, err := model.Planner{Schema: s.sc}.Signup(id, attrs)
	if err != nil {
		return err
	}
	if !withOwner {
		for _, a := range plan.Actions {
			if a.Role == model.RoleTakeLock {
				delete(a.Item, s.sc.OwnerAttr)
			}
		}
	}
	tx, err := s.store.Writer.Prepare(plan, backend.NewToken())
	if err != nil {
		return err
	}
	// Cancelled: already seeded, the guards kept it as it was.
	_, err = s.store.Seeder.SendOnce(ctx, tx)
	return err
}

// put writes an item without any guard: how buggy code skips the pattern.
func (s seeder) put(ctx context.Context, table string, item model.Item) error {
	return s.store.Seeder.PutUnguarded(ctx, table, item)
}

// putAccount writes the account alone, skipping the transaction and its
// locks, then the locks listed in withLocks (by constraint index) one by one.
func (s seeder) putAccount(ctx context.Context, id string, attrs map[string]string, withLocks ...int) error {
	if s.electro {
		return s.putPlanned(ctx, id, attrs, withLocks...)
	}
	if err := s.put(ctx, s.sc.Table, s.accountItem(id, attrs)); err != nil {
		return err
	}
	for _, ci := range withLocks {
		table, lock := s.lockItem(ci, attrs[s.sc.Constraints[ci].Attr], id)
		if err := s.put(ctx, table, lock); err != nil {
			return err
		}
	}
	return nil
}

// deleteAccount deletes the account item alone, leaving its locks: a
// delete that forgot them.
func (s seeder) deleteAccount(ctx context.Context, id string) error {
	return s.store.Seeder.DeleteUnguarded(ctx, s.sc.Table, s.sc.AccountKey(id))
}

// plant writes the anomaly cases after the n healthy accounts, each with
// accounts of its own. It returns the number of cases planted and the next
// free account number.
func (s seeder) plant(ctx context.Context, n int) (int, int, error) {
	next := n
	account := func() (string, map[string]string) { next++; return s.sampleAccount(next - 1) }
	first := s.sc.Constraints[0].Attr
	others := func() []int { // every constraint but the first
		var cis []int
		for ci := 1; ci < len(s.sc.Constraints); ci++ {
			cis = append(cis, ci)
		}
		return cis
	}
	// leakyRename changes the first attribute of an account and locks the
	// new value, but never releases the old lock.
	leakyRename := func(id string, attrs map[string]string) error {
		attrs[first] = sampleValue(first, 1_000_000+next)
		next++
		return s.putAccount(ctx, id, attrs, 0)
	}
	k := AnomaliesPerKind(n)
	cases := 0
	for m := range k {
		steps := []func() error{
			// missing_lock: a signup that skipped the transaction.
			func() error { id, attrs := account(); return s.putAccount(ctx, id, attrs) },
			// orphan_lock, three ways buggy code leaves one.
			func() error {
				id, attrs := account()
				if err := s.signup(ctx, id, attrs, m%3 != 2); err != nil {
					return err
				}
				if m%3 == 0 {
					return leakyRename(id, attrs)
				}
				return s.deleteAccount(ctx, id) // a delete that left the locks
			},
			// foreign_lock: A renames away without releasing its lock, then B
			// takes the value with a write that skips the check.
			func() error {
				a, aAttrs := account()
				if err := s.signup(ctx, a, aAttrs, true); err != nil {
					return err
				}
				old := aAttrs[first]
				if err := leakyRename(a, aAttrs); err != nil {
					return err
				}
				b, bAttrs := account()
				bAttrs[first] = old
				return s.putAccount(ctx, b, bAttrs, others()...)
			},
			// duplicate_value: D copies C's value with a write that skips the
			// check; C keeps the lock.
			func() error { return s.duplicate(ctx, account, true) },
		}
		if s.sc.LockTTLAttr(0) != "" {
			steps = append(steps, s.reservations(ctx, account)...)
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return cases, next, err
			}
			cases++
		}
	}
	return cases, next, nil
}

// duplicate plants a duplicate_value on fresh accounts from account: D
// copies C's first value with a write that skips the check (D's other
// values locked); C keeps the lock, which names C when withOwner.
func (s seeder) duplicate(ctx context.Context, account func() (string, map[string]string), withOwner bool) error {
	first := s.sc.Constraints[0].Attr
	c, cAttrs := account()
	if err := s.signup(ctx, c, cAttrs, withOwner); err != nil {
		return err
	}
	d, dAttrs := account()
	dAttrs[first] = cAttrs[first]
	others := make([]int, 0, len(s.sc.Constraints)-1)
	for ci := 1; ci < len(s.sc.Constraints); ci++ {
		others = append(others, ci)
	}
	return s.putAccount(ctx, d, dAttrs, others...)
}

// reservations are the cases a table whose locks have a TTL attribute
// gets, each on fresh accounts from account, with TTLs relative to the
// store's time (its Clock): a signup that reserves each value first (a
// lock with a TTL), then writes the account and makes the reservations
// permanent (removes the TTL), dying at each step in turn.
func (s seeder) reservations(ctx context.Context, account func() (string, map[string]string)) []func() error {
	first := s.sc.Constraints[0].Attr
	reserve := func(v, owner string, ttl time.Duration) error {
		table, lock := s.lockItem(0, v, owner)
		lock[s.sc.LockTTLAttr(0)] = model.N(strconv.FormatInt(s.store.Clock.Now().Add(ttl).Unix(), 10))
		return s.put(ctx, table, lock)
	}
	// reserved writes an account whose first value's lock is still a
	// reservation until ttl from now: the signup died before making it
	// permanent.
	reserved := func(ttl time.Duration) error {
		id, attrs := account()
		others := make([]int, 0, len(s.sc.Constraints)-1)
		for ci := 1; ci < len(s.sc.Constraints); ci++ {
			others = append(others, ci)
		}
		if err := s.putAccount(ctx, id, attrs, others...); err != nil {
			return err
		}
		return reserve(attrs[first], id, ttl)
	}
	return []func() error{
		// A live reservation: a signup in progress, no problem.
		func() error { id, attrs := account(); return reserve(attrs[first], id, 15*time.Minute) },
		// An expired reservation nobody holds: the signup died before
		// writing the account, and DynamoDB has not deleted the lock yet.
		func() error { id, attrs := account(); return reserve(attrs[first], id, -3*time.Hour) },
		// A lapsed reservation its account holds: expired_lock.
		func() error { return reserved(-40 * time.Minute) },
		// A reservation its account outlives: expiring_lock.
		func() error { return reserved(time.Hour) },
	}
}

// others writes what a single-table design keeps beside accounts and
// locks, in a table with a sort key: two orders under the first sample
// account's partition key and a setting under a key of its own.
func (s seeder) others(ctx context.Context) error {
	if s.sc.SK == "" {
		return nil
	}
	first, _ := s.sampleAccount(0)
	pk, sk := s.sc.PK, s.sc.SK
	for _, it := range []model.Item{
		{pk: model.S(first), sk: model.S("ORDER#0001"), "status": model.S("shipped"), "total": model.N("42")},
		{pk: model.S(first), sk: model.S("ORDER#0002"), "status": model.S("paid"), "total": model.N("7")},
		{pk: model.S("CONFIG#site"), sk: model.S("SETTINGS"), "motd": model.S("welcome")},
	} {
		if err := s.put(ctx, s.sc.Table, it); err != nil {
			return err
		}
	}
	return nil
}

// showcase plants, from account number next on, an invalid_value (a client
// that wrote a number where a string belongs) and a healthy account whose
// text carries a terminal title escape and a bidi override, which the UI
// must show inert.
func (s seeder) showcase(ctx context.Context, next int) error {
	id, attrs := s.sampleAccount(next)
	item := s.accountItem(id, attrs)
	last := s.sc.Constraints[len(s.sc.Constraints)-1].Attr
	item[last] = model.N(fmt.Sprint(next))
	if err := s.put(ctx, s.sc.Table, item); err != nil {
		return err
	}
	for ci := range len(s.sc.Constraints) - 1 {
		table, lock := s.lockItem(ci, attrs[s.sc.Constraints[ci].Attr], id)
		if err := s.put(ctx, table, lock); err != nil {
			return err
		}
	}
	// Written with its locks but without the transaction: Signup rightly
	// refuses control characters in new values.
	id, attrs = s.sampleAccount(next + 1)
	attrs[last] = "mallory\x1b]0;pwned\x07\u202eevil"
	all := make([]int, len(s.sc.Constraints))
	for ci := range all {
		all[ci] = ci
	}
	return s.putAccount(ctx, id, attrs, all...)
}
