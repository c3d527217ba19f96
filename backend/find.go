package backend

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/locktable/locktable/model"
)

// Found is what a search turned up: the accounts the query names (by key,
// or by a value they hold), the locks it names that nobody holds, and in
// words how it looked.
type Found struct {
	Query    string
	Accounts []model.AccountView
	Orphans  []model.Problem // locks of the value that nobody holds
	// How lists what was tried, in order ("account key ACCT#a1", "lock
	// UNIQ#EMAIL#ada@x.io: owner ACCT#a1", "scan for email=ada@x.io: 1,204
	// items read").
	How []string
	// Note is for a person: why nothing matched, or that a match was
	// found under another case.
	Note string
	// Now is when the search judged the TTLs of the locks nobody holds,
	// in epoch seconds: its words ("reserved 12 min more") say it at
	// that time.
	Now int64
}

// FindOptions tune a search.
type FindOptions struct {
	// Known, when set, lists accounts known to hold normalized value v of
	// constraint ci (the terminal UI's finished check). With it a value
	// whose lock names an owner that holds it is not looked up by value:
	// its other holders are the known ones. Without it every value found
	// is looked up by value (the GSI, else a scan), so that every holder
	// of a duplicate is listed.
	Known func(ci int, v string) []string
	// Progress, when set, is told what a scan is doing.
	Progress func(what string, scanned int64)
}

// Finder is what Find reads: accounts by key, locks by their raw value,
// and holders by value. *dynamo.Lookup is one; the terminal UI's in-memory fake is
// another, so that both search by the same rules.
type Finder interface {
	Account(ctx context.Context, id string) (model.AccountView, bool, error)
	LockAt(ctx context.Context, ci int, raw string) (model.Item, bool, error)
	// Holders returns, for each constraint of cis, the keys of the
	// accounts that hold value v, sorted: one scan covers every
	// constraint without an index.
	Holders(ctx context.Context, cis []int, v string, progress func(scanned int64)) ([][]string, error)
}

// finder is one search of src, for the schema sc, at now.
type finder struct {
	src Finder
	sc  *model.Schema
	now int64 // epoch seconds
	// read keeps each account read so far: a lock's owner is often one of
	// the holders a lookup by value finds, and is read once.
	read map[string]accountRead
}

type accountRead struct {
	view  model.AccountView
	found bool
}

// Find looks for what q names in src, the way a person pastes things: an
// account key (ACCT#e4c0e999, or the bare e4c0e999 when accounts have a
// prefix), a lock key (UNIQ#EMAIL#ada@x.io), or a value of a unique
// attribute. A value is followed from its lock to the lock's owner, and
// looked up by value (the attribute's GSI, else a scan) when the lock names
// nobody, when its owner does not hold it, or, unless o.Known says
// otherwise, to list every holder of a duplicate. Every account is read
// consistently. A lock nobody holds is judged at now, src's time (epoch
// seconds), as src judges the accounts' locks.
func Find(ctx context.Context, sc *model.Schema, src Finder, q string, now int64, o FindOptions) (Found, error) {
	return finder{src, sc, now, map[string]accountRead{}}.find(ctx, q, o)
}

// account reads account id consistently, once per search.
func (fd finder) account(ctx context.Context, id string) (model.AccountView, bool, error) {
	if r, ok := fd.read[id]; ok {
		return r.view, r.found, nil
	}
	a, found, err := fd.src.Account(ctx, id)
	if err == nil {
		fd.read[id] = accountRead{a, found}
	}
	return a, found, err
}

func (fd finder) find(ctx context.Context, q string, o FindOptions) (Found, error) {
	f := Found{Query: q, Now: fd.now}
	sc := fd.sc
	seen := map[string]bool{}
	add := func(views ...model.AccountView) {
		for _, v := range views {
			if !seen[v.ID] {
				seen[v.ID] = true
				f.Accounts = append(f.Accounts, v)
			}
		}
	}
	// An account key, as given or with the account prefix.
	ids := []string{q}
	if sc.AccountPrefix != "" && !strings.HasPrefix(q, sc.AccountPrefix) {
		ids = append(ids, sc.AccountPrefix+q)
	}
	for _, id := range ids {
		a, found, err := fd.account(ctx, id)
		if err != nil {
			return f, err
		}
		if found {
			f.How = append(f.How, "account key "+id)
			add(a)
			return f, nil
		}
	}
	// A lock key names one constraint and its raw value.
	constraints, value := fd.lockKeyQuery(q)
	locks, err := fd.readLocks(ctx, constraints, value)
	if err != nil {
		return f, err
	}
	if err := fd.findValue(ctx, &f, locks, value, o, add); err != nil {
		return f, err
	}
	if len(f.Accounts) > 0 || len(f.Orphans) > 0 {
		return f, nil
	}
	// Under --normalize none case matters; a lock under the lower case is
	// a cheap read that often explains "nothing found".
	for _, ci := range constraints {
		c := sc.Constraints[ci]
		lower := strings.ToLower(value)
		if c.Normalize != model.NormalizeNone || lower == value {
			continue
		}
		if lock, found, err := fd.src.LockAt(ctx, ci, lower); err != nil {
			return f, err
		} else if found {
			// The lock just read is followed as read, not read again.
			if err := fd.findValue(ctx, &f, []valueLock{{ci, lower, lock}}, lower, o, add); err != nil {
				return f, err
			}
			f.Note = fmt.Sprintf("no %s is %s; found %s: %s compares values exactly (--normalize none), so case matters",
				c.Attr, model.Printable(value), model.Printable(lower), c.Attr)
			return f, nil
		}
	}
	f.Note = "nothing matches " + model.Printable(q) + " (tried the account key and every unique attribute)"
	if slices.ContainsFunc(sc.Constraints, func(c model.Constraint) bool { return c.Normalize == model.NormalizeNone }) {
		f.Note += "; values are compared exactly, so case matters"
	}
	return f, nil
}

// lockKeyQuery reads q as a lock key pasted whole: a constraint's lock
// prefix followed by the value. Otherwise q is a value of any constraint.
func (fd finder) lockKeyQuery(q string) ([]int, string) {
	for ci, c := range fd.sc.Constraints {
		if c.InAccountTable() && c.Prefix != "" && strings.HasPrefix(q, c.Prefix) {
			return []int{ci}, strings.TrimPrefix(q, c.Prefix)
		}
		if c.AltPrefix != "" && strings.HasPrefix(q, c.AltPrefix) {
			return []int{ci}, strings.TrimPrefix(q, c.AltPrefix)
		}
	}
	all := make([]int, len(fd.sc.Constraints))
	for ci := range all {
		all[ci] = ci
	}
	return all, q
}

// valueLock is the lock of one constraint for the value searched, as read.
type valueLock struct {
	ci   int
	v    string     // the value, normalized by the constraint
	lock model.Item // nil: there is none
}

// readLocks reads the lock of value q of each constraint in cis.
func (fd finder) readLocks(ctx context.Context, cis []int, q string) ([]valueLock, error) {
	var out []valueLock
	for _, ci := range cis {
		v := fd.sc.Constraints[ci].Normalize.Apply(q)
		lock, _, err := fd.src.LockAt(ctx, ci, v)
		if err != nil {
			return nil, err
		}
		out = append(out, valueLock{ci, v, lock})
	}
	return out, nil
}

// findValue follows value q through the locks read for it: each lock's
// owner, and the holders by value where the owner does not settle it.
// Locks that nobody holds are added to f.Orphans.
func (fd finder) findValue(ctx context.Context, f *Found, locks []valueLock, q string, o FindOptions, add func(...model.AccountView)) error {
	var lookups []int // constraints to look up by value
	var unowned []model.Problem
	for _, l := range locks {
		lookup, orphan, err := fd.followLock(ctx, f, l, o, add)
		if err != nil {
			return err
		}
		if orphan != nil {
			unowned = append(unowned, *orphan)
		}
		if lookup {
			lookups = append(lookups, l.ci)
		}
	}
	if len(lookups) == 0 {
		return nil
	}
	return fd.lookUpValue(ctx, f, lookups, unowned, q, o, add)
}

// followLock follows the lock of a value to its owner, adding the owner
// and, with o.Known, the value's other known holders. It reports whether
// the value must still be looked up by value (no lock, no owner, an owner
// gone or not holding it, or every holder of a duplicate wanted), and the
// orphan the lock is when its owner is none or gone.
func (fd finder) followLock(ctx context.Context, f *Found, l valueLock, o FindOptions, add func(...model.AccountView)) (lookup bool, orphan *model.Problem, err error) {
	sc := fd.sc
	ci, v, lock := l.ci, l.v, l.lock
	if lock == nil {
		return true, nil, nil
	}
	table, _ := sc.LockKey(ci, v)
	alt := model.Classifier{Schema: sc}.Classify(table, lock).Alt // in the spelling found
	_, key := sc.LockKeyAs(ci, v, alt)
	owner := ""
	if ov, ok := lock[sc.OwnerAttr]; ok && ov.Kind == model.KindS {
		owner = ov.S
	}
	lockText := "lock " + model.Printable(key[sc.LockPK(ci)])
	now := fd.now
	// A lock nobody is found holding is an orphan, or, with a TTL, an
	// expired lock or a reservation (no problem), as the check judges it.
	unheld := func() *model.Problem {
		lease := model.ReadLease(lock, sc.LockTTLAttr(ci))
		ttl, at := lease.Verdict(now), lease.At
		if ttl == model.TTLAhead {
			f.How = append(f.How, lockText+": reserved until "+model.TTLTime(at)+" ("+model.Until(at, now)+" more)")
			return nil
		}
		p := sc.Spelled(model.Classifier{Schema: sc}.LockProblem(model.OrphanLock, ci, v, owner), alt)
		if ttl == model.TTLExpired {
			p.Kind, p.ExpiresAt = model.ExpiredLock, at
		}
		return &p
	}
	if owner == "" {
		f.How = append(f.How, lockText+": no owner")
		return true, unheld(), nil
	}
	f.How = append(f.How, lockText+": owner "+model.Printable(owner))
	a, found, err := fd.account(ctx, owner)
	if err != nil {
		return false, nil, err
	}
	if !found {
		return true, unheld(), nil
	}
	add(a)
	if h, hv := sc.Held(ci, a.Item); h != model.HoldsValue || hv != v {
		return true, nil, nil // a foreign lock: who holds v?
	}
	if o.Known == nil {
		return true, nil, nil // every holder of a duplicate
	}
	for _, id := range o.Known(ci, v) {
		if id == a.ID {
			continue
		}
		if other, found, err := fd.account(ctx, id); err != nil {
			return false, nil, err
		} else if found {
			add(other)
		}
	}
	return false, nil, nil
}

// lookUpValue finds the holders of q for the constraints lookups, by
// their indexes or one scan for those without, and adds them; a value
// nobody holds names the orphans among unowned that lock it.
func (fd finder) lookUpValue(ctx context.Context, f *Found, lookups []int, unowned []model.Problem, q string, o FindOptions, add func(...model.AccountView)) error {
	sc := fd.sc

	// The constraints without an index share one scan.
	var scanned []string
	for _, ci := range lookups {
		if !sc.Constraints[ci].Indexed() {
			scanned = append(scanned, sc.Constraints[ci].Attr+"="+model.Printable(q))
		}
	}
	what := "scan for " + strings.Join(scanned, " or ")
	var read int64
	holders, err := fd.src.Holders(ctx, lookups, q, func(n int64) {
		read = n
		if o.Progress != nil {
			o.Progress(what, n)
		}
	})
	if err != nil {
		return err
	}
	byScan := map[string]bool{}
	for i, ci := range lookups {
		c := sc.Constraints[ci]
		var views []model.AccountView
		for _, id := range holders[i] {
			if a, found, err := fd.account(ctx, id); err != nil {
				return err
			} else if found {
				views = append(views, a)
			}
		}
		if c.Indexed() {
			f.How = append(f.How, fmt.Sprintf("index %s for %s=%s: %d found", c.Index, c.Attr, model.Printable(q), len(views)))
		} else {
			for _, a := range views {
				byScan[a.ID] = true
			}
		}
		if len(views) == 0 {
			for _, u := range unowned {
				if u.ConstraintIndex() == ci {
					f.Orphans = append(f.Orphans, u)
				}
			}
		}
		add(views...)
	}
	if len(scanned) > 0 {
		f.How = append(f.How, fmt.Sprintf("%s: %d items read, %d found", what, read, len(byScan)))
	}
	return nil
}
