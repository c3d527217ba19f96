package backend

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/locktable/locktable/model"
)

// HolderFinder looks for the accounts that hold values, by value: through
// the constraint's GSI where one is configured, else by a consistent scan
// of the accounts. *dynamo.Lookup is one.
type HolderFinder interface {
	LookupHolders(ctx context.Context, wanted []Wanted) (HolderLookup, error)
}

// EventKind says whether a problem appeared or was resolved.
type EventKind string

// The kinds of Event.
const (
	Appeared EventKind = "appeared"
	Resolved EventKind = "resolved"
	// Existing is a problem seen first after writes that cannot have
	// made it: each changed nothing the check reads of its item (its old
	// and new images say so), so it was there before them (a problem
	// older than the watch, which a write to one of its items brings to
	// light).
	Existing EventKind = "existing"
	// Changed is a problem known and found again (the same problem:
	// model.SameProblem) with other details: its lock's TTL lapsed
	// (expiring_lock is now expired_lock, or back), its owner or holders
	// changed. A view that shows the details takes the new ones; a watch
	// reports nothing new.
	Changed EventKind = "changed"
)

// Event is a problem that a change made appear, or resolved.
type Event struct {
	Kind    EventKind
	Problem model.Problem
	// Cause is the change after which the problem was found, or no
	// longer found.
	Cause model.Change
}

// Tracker follows what writes do to the integrity of a table set. Each
// change (a stream's record) names the values it touched: the values an
// account held before and after it, a lock's value. Those are re-read
// with strongly consistent reads (the locks, the holders known, the
// owners the locks name) and judged by the check's own census, so a
// state between the records of one transaction, which the reads never
// see, raises nothing. It keeps the problems it found per value, so that
// it can say when one is resolved. One goroutine at a time uses it.
type Tracker struct {
	schema *model.Schema
	src    Reader
	finder HolderFinder
	now    func() int64
	known  map[scope][]model.Problem
	// batch counts the batches judged; judgedIn is the batch that last
	// judged each scope (Know keeps those judged after a check began).
	batch    int
	judgedIn map[scope]int
	// pending are the changes whose judgement waits for a later write's
	// record (Judge), in the order they came.
	pending []model.Change
}

// maxPending bounds the changes that wait for a later write's record:
// past it, they are judged as they are.
const maxPending = 10_000

// NewTracker is a tracker of sc's tables, reading by key from src and
// looking for the holders of an ownerless orphan's value through finder
// (nil: such orphans, which no key read confirms, are not reported).
// now is the time TTLs are judged at, in epoch seconds.
func NewTracker(sc *model.Schema, src Reader, finder HolderFinder, now func() int64) *Tracker {
	return &Tracker{schema: sc, src: src, finder: finder, now: now, known: map[scope][]model.Problem{}, judgedIn: map[scope]int{}}
}

// scope is what one judgement covers: a value of a constraint (a lock's
// raw value, or a holder's normalized one), or the invalid value of
// constraint ci held by an account.
type scope struct {
	ci      int
	value   string
	account string // set: the account's invalid value
}

// Know tells the tracker the problems found otherwise (a finished
// check's), which replace those it knew, so that a change that resolves
// one of them says so; but not where a batch after since (Batch) judged:
// the check began after batch since was judged, and may have read the
// table before the later ones' writes, while the tracker read it after
// them. The changes waiting for a later record wait on.
func (t *Tracker) Know(ps []model.Problem, since int) {
	known := map[scope][]model.Problem{}
	for s, b := range t.judgedIn {
		if b > since && len(t.known[s]) > 0 {
			known[s] = t.known[s]
		}
	}
	for _, p := range ps {
		s := t.scopeOf(p)
		if t.judgedIn[s] > since {
			continue
		}
		kept := slices.DeleteFunc(known[s], func(k model.Problem) bool { return model.SameProblem(k, p) })
		known[s] = append(kept, p)
	}
	t.known = known
}

// Rejudged tells the tracker what reads of a few problems' keys found
// otherwise (a fix's judgement of what it touched): the problems gone
// are known no more, those there are known, each in its scope, unless a
// batch after since judged that scope since.
func (t *Tracker) Rejudged(gone, there []model.Problem, since int) {
	for _, p := range gone {
		if s := t.scopeOf(p); t.judgedIn[s] <= since {
			t.known[s] = slices.DeleteFunc(t.known[s], func(k model.Problem) bool { return model.SameProblem(k, p) })
			if len(t.known[s]) == 0 {
				delete(t.known, s)
			}
		}
	}
	for _, p := range there {
		if s := t.scopeOf(p); t.judgedIn[s] <= since {
			kept := slices.DeleteFunc(t.known[s], func(k model.Problem) bool { return model.SameProblem(k, p) })
			t.known[s] = append(kept, p)
		}
	}
}

// Known is every problem the tracker knows now: those a check found
// (Know), as the changes judged since left them.
func (t *Tracker) Known() []model.Problem {
	var ps []model.Problem
	for _, known := range t.known {
		ps = append(ps, known...)
	}
	model.SortProblems(ps)
	return ps
}

// Waiting are the changes whose judgement waits for a later write's
// record (Judge), in the order they came: a checkpoint keeps them, as
// the stream will not deliver them again.
func (t *Tracker) Waiting() []model.Change { return slices.Clone(t.pending) }

// Wait puts changes back to wait for a later record (a checkpoint's
// Waiting), before any the tracker holds: they were made first.
func (t *Tracker) Wait(changes []model.Change) {
	t.pending = append(slices.Clone(changes), t.pending...)
}

// Batch is the number of the last batch Judge judged, from 1.
func (t *Tracker) Batch() int { return t.batch }

// compareScopes orders scopes by constraint, value, then account.
func compareScopes(a, b scope) int {
	return cmp.Or(cmp.Compare(a.ci, b.ci), cmp.Compare(a.value, b.value), cmp.Compare(a.account, b.account))
}

// scopeOf is the scope that covers problem p.
func (t *Tracker) scopeOf(p model.Problem) scope {
	ci := p.ConstraintIndex()
	switch {
	case p.Kind != model.InvalidValue:
		return scope{ci: ci, value: p.Value}
	case p.Lock == nil && len(p.Accounts) == 1:
		return scope{ci: ci, account: p.Accounts[0]}
	}
	return scope{ci: ci, value: t.lockValue(p)}
}

// Judge re-reads and judges what changes touched, and returns the
// problems that appeared and those resolved since the tracker last
// judged them, each with the change that may have made it: the last of
// those that touched it and changed what the check reads (mayMake),
// else the last that touched it.
//
// Records arrive after the writes they tell of: where the reads show an
// item otherwise than the last of the changes to it left it, a later
// write to it is made but not yet streamed, and its problems would be
// laid at these changes' door. What such changes touched waits (with
// them) for a later batch, which judges it with that write's record.
//
// A judgement that fails (a read failed) leaves the changes that waited
// waiting: their records were handed on before, and nobody sends them
// again.
func (t *Tracker) Judge(ctx context.Context, changes []model.Change) (_ []Event, err error) {
	waited := t.pending
	changes = append(slices.Clip(t.pending), changes...) // those that waited were made first
	t.pending = nil
	defer func() {
		if err != nil {
			t.pending = waited
		}
	}()
	t.batch++
	touched := map[scope][]model.Change{}
	var order []scope
	w := t.newWork()
	for _, c := range changes {
		scopes, err := t.scopes(ctx, c, w)
		if err != nil {
			return nil, err
		}
		for _, s := range scopes {
			if _, ok := touched[s]; !ok {
				order = append(order, s)
			}
			touched[s] = append(touched[s], c)
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	now, seen, err := t.read(ctx, w, order)
	if err != nil {
		return nil, err
	}
	ahead := t.ahead(changes, seen)
	wait := map[string]bool{} // the changes that wait, by changeID
	var events []Event
	for _, s := range order {
		cs := touched[s]
		if len(changes) <= maxPending && slices.ContainsFunc(cs, func(c model.Change) bool { return ahead[t.keyID(c)] }) {
			for _, c := range cs {
				wait[t.changeID(c)] = true
			}
			continue
		}
		events = append(events, t.settle(s, now[s], cs)...)
	}
	for _, c := range changes {
		if wait[t.changeID(c)] {
			t.pending = append(t.pending, c)
		}
	}
	return events, nil
}

// Recheck reads every problem the tracker knows again, as Judge reads
// what a change touched, and returns those resolved (and any other found
// in their scopes), laid at cause: for a watch that resumed over a gap
// in the stream, whose records of the writes in between are lost.
func (t *Tracker) Recheck(ctx context.Context, cause model.Change) ([]Event, error) {
	scopes := slices.SortedFunc(maps.Keys(t.known), compareScopes)
	if len(scopes) == 0 {
		return nil, nil
	}
	t.batch++
	now, _, err := t.read(ctx, t.newWork(), scopes)
	if err != nil {
		return nil, err
	}
	var events []Event
	for _, s := range scopes {
		events = append(events, t.settle(s, now[s], []model.Change{cause})...)
	}
	return events, nil
}

// changeID names change c: its item and its place in the item's stream.
func (t *Tracker) changeID(c model.Change) string { return t.keyID(c) + "@" + c.Sequence }

// ahead names the items (keyID) the reads (seen) show otherwise than the
// last of changes to them left them: a later write to them is made but
// not yet streamed. Only where the stream says what a write left (its
// new image; a REMOVE leaves nothing) and the item was read (seen: its
// key read, nil when it was not found).
func (t *Tracker) ahead(changes []model.Change, seen map[string]model.Item) map[string]bool {
	last := map[string]model.Change{}
	for _, c := range changes {
		last[t.keyID(c)] = c
	}
	ahead := map[string]bool{}
	for id, c := range last {
		read, ok := seen[id]
		if !ok || (c.Event != model.ChangeRemove && c.New == nil) {
			continue
		}
		left := c.New
		if c.Event == model.ChangeRemove {
			left = nil
		}
		if !t.sameRead(c.Table, left, read) {
			ahead[id] = true
		}
	}
	return ahead
}

// keyID names the item change c wrote, as model.KeyRef.ID does.
func (t *Tracker) keyID(c model.Change) string {
	return model.KeyRef{Table: c.Table, Key: t.schema.KeyOf(c.Table, c.Keys)}.ID()
}

// sameRead reports whether items a and b (nil: none) agree on every
// attribute the check reads of them.
func (t *Tracker) sameRead(table string, a, b model.Item) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return sameAttrs(t.schema.ReadNames(table), a, b)
}

// mayMake reports whether change c may have made (or resolved) a
// problem of scope s: unless it is a MODIFY whose old and new images say
// the same of s: of an account, what it holds of s's constraint (as
// Schema.Held reads it, the raw attribute for an invalid value) and its
// TTL; of a lock or another item, every attribute the check reads of it.
// Without images (a stream of keys or of new images only) nobody can
// tell: it may have.
func (t *Tracker) mayMake(c model.Change, s scope) bool {
	if c.Event != model.ChangeModify || c.Old == nil || c.New == nil {
		return true
	}
	if t.sameRead(c.Table, c.Old, c.New) {
		return false
	}
	sc := t.schema
	cl := model.Classifier{Schema: sc}
	if o, n := cl.Classify(c.Table, c.Old), cl.Classify(c.Table, c.New); o.Kind != n.Kind || o.Kind != model.EntryAccount {
		return true
	}
	ho, vo := sc.Held(s.ci, c.Old)
	hn, vn := sc.Held(s.ci, c.New)
	attrs := []string{sc.TTLAttrOf(c.Table), sc.Constraints[s.ci].Attr}
	return ho != hn || vo != vn || !sameAttrs(attrs, c.Old, c.New)
}

// sameAttrs reports whether items a and b agree on attributes names
// ("" is none).
func sameAttrs(names []string, a, b model.Item) bool {
	for _, name := range names {
		x, inA := a[name]
		y, inB := b[name]
		if name != "" && (inA != inB || (inA && x.DynamoJSON() != y.DynamoJSON())) {
			return false
		}
	}
	return true
}

// settle records found as the problems of s and returns how they differ
// from what was known after changes touched s: one not known appeared,
// caused by the last change that may have made it (mayMake), unless none
// may have: then it was there already (Existing), first seen after the
// last change.
func (t *Tracker) settle(s scope, found []model.Problem, changes []model.Change) []Event {
	cause, made := changes[len(changes)-1], false
	for _, c := range slices.Backward(changes) {
		if t.mayMake(c, s) {
			cause, made = c, true
			break
		}
	}
	var events []Event
	for _, p := range found {
		i := slices.IndexFunc(t.known[s], func(k model.Problem) bool { return model.SameProblem(k, p) })
		switch {
		case i < 0:
			kind := Existing
			if made {
				kind = Appeared
			}
			events = append(events, Event{Kind: kind, Problem: p, Cause: cause})
		case !sameDetails(t.known[s][i], p):
			events = append(events, Event{Kind: Changed, Problem: p, Cause: cause})
		}
	}
	for _, k := range t.known[s] {
		if !slices.ContainsFunc(found, func(p model.Problem) bool { return model.SameProblem(k, p) }) {
			events = append(events, Event{Kind: Resolved, Problem: k, Cause: cause})
		}
	}
	if len(found) == 0 {
		delete(t.known, s)
	} else {
		t.known[s] = found
	}
	t.judgedIn[s] = t.batch
	return events
}

// sameDetails reports whether p and q, the same problem, say the same of
// it: its kind, owner, holders, lock and TTL.
func sameDetails(p, q model.Problem) bool {
	return p.Kind == q.Kind && p.Owner == q.Owner && p.ExpiresAt == q.ExpiresAt && p.LockTable == q.LockTable &&
		slices.Equal(p.Accounts, q.Accounts) && maps.Equal(p.Lock, q.Lock)
}

// work is what one judgement reads: the accounts that may hold the values
// judged, besides those the locks name.
type work struct {
	accounts map[string]bool
}

func (t *Tracker) newWork() *work { return &work{accounts: map[string]bool{}} }

// scopes are what change c touched, and the accounts it names go into w.
func (t *Tracker) scopes(ctx context.Context, c model.Change, w *work) ([]scope, error) {
	sc := t.schema
	cl := model.Classifier{Schema: sc}
	e := cl.Classify(c.Table, c.Image())
	switch e.Kind {
	case model.EntryLock:
		for _, img := range []model.Item{c.Old, c.New} {
			if owner := sc.NamedOwner(img); img != nil && owner != "" && !model.IsClaim(owner) {
				w.accounts[owner] = true // a removed lock's owner may hold its value
			}
		}
		return []scope{{ci: e.Constraint, value: e.Value}}, nil
	case model.EntryAccount:
		return t.accountScopes(ctx, c, e.ID, w)
	}
	return nil, nil
}

// accountScopes are the values account id held before and after change
// c, and its invalid values; without images (a stream of keys only),
// what it holds now and what the tracker knows of it.
func (t *Tracker) accountScopes(ctx context.Context, c model.Change, id string, w *work) ([]scope, error) {
	sc := t.schema
	w.accounts[id] = true
	images := []model.Item{c.Old, c.New}
	if c.Old == nil && c.New == nil {
		err := t.src.ReadConsistent(ctx, []model.KeyRef{{Table: sc.Table, Key: sc.AccountKey(id)}},
			func(_ string, it model.Item) { images = append(images, it) })
		if err != nil {
			return nil, err
		}
	}
	var scopes []scope
	for ci := range sc.Constraints {
		scopes = append(scopes, scope{ci: ci, account: id})
		for _, img := range images {
			if h, v := sc.Held(ci, img); img != nil && h == model.HoldsValue {
				scopes = append(scopes, scope{ci: ci, value: v})
			}
		}
	}
	var named []scope
	for s, known := range t.known {
		if slices.ContainsFunc(known, func(p model.Problem) bool { return p.Owner == id || slices.Contains(p.Accounts, id) }) {
			named = append(named, s)
		}
	}
	slices.SortFunc(named, compareScopes)
	return append(scopes, named...), nil
}

// read reads what the scopes involve with strongly consistent reads (the
// locks of the values, the accounts w names and the known problems
// name, then the owners the locks name) and returns each scope's
// problems, as the check's census judges them, and what the first reads
// found at each key they asked for (nil: not found).
func (t *Tracker) read(ctx context.Context, w *work, scopes []scope) (map[scope][]model.Problem, map[string]model.Item, error) {
	sc := t.schema
	cl := model.Classifier{Schema: sc}
	var refs []model.KeyRef
	for _, s := range scopes {
		if s.account == "" {
			refs = append(refs, sc.LockKeys(s.ci, s.value)...)
		}
		for _, p := range t.known[s] {
			refs = append(refs, cl.Involved(p)...)
		}
	}
	for id := range w.accounts {
		refs = append(refs, model.KeyRef{Table: sc.Table, Key: sc.AccountKey(id)})
	}
	refs = slices.CompactFunc(slices.SortedFunc(slices.Values(refs), func(a, b model.KeyRef) int { return strings.Compare(a.ID(), b.ID()) }),
		func(a, b model.KeyRef) bool { return a.ID() == b.ID() }) // the census counts an item read twice twice
	census := model.NewCensus(sc, t.now())
	seen := make(map[string]model.Item, len(refs))
	for _, r := range refs {
		seen[r.ID()] = nil
	}
	owners := map[string]bool{}
	read := map[string]bool{}
	err := t.src.ReadConsistent(ctx, refs, func(table string, it model.Item) {
		seen[model.KeyRef{Table: table, Key: sc.KeyOf(table, it)}.ID()] = it
		census.Add(table, it)
		if e := cl.Classify(table, it); e.Kind == model.EntryLock && e.Owner != "" && !model.IsClaim(e.Owner) {
			owners[e.Owner] = true
		} else if e.Kind == model.EntryAccount {
			read[e.ID] = true
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if err := t.readAccounts(ctx, census, owners, read); err != nil {
		return nil, nil, err
	}
	if err := t.lookOwnerless(ctx, census, scopes, read); err != nil {
		return nil, nil, err
	}
	return t.byScope(census.Problems(), scopes), seen, nil
}

// readAccounts adds to census the accounts of ids not read yet.
func (t *Tracker) readAccounts(ctx context.Context, census *model.Census, ids, read map[string]bool) error {
	var refs []model.KeyRef
	for id := range ids {
		if !read[id] {
			read[id] = true
			refs = append(refs, model.KeyRef{Table: t.schema.Table, Key: t.schema.AccountKey(id)})
		}
	}
	if len(refs) == 0 {
		return nil
	}
	return t.src.ReadConsistent(ctx, refs, census.Add)
}

// lookOwnerless confirms the orphan locks among the scopes' problems that
// name no owner (or a claim), which no key read can: it looks for the
// holders of their values by value (HolderFinder), and adds those found.
func (t *Tracker) lookOwnerless(ctx context.Context, census *model.Census, scopes []scope, read map[string]bool) error {
	var wanted []Wanted
	for _, p := range t.inScopes(census.Problems(), scopes) {
		if model.NeedsRescan(p) {
			wanted = append(wanted, Wanted{Constraint: p.ConstraintIndex(), Value: p.Value})
		}
	}
	if len(wanted) == 0 || t.finder == nil {
		return nil
	}
	found, err := t.finder.LookupHolders(ctx, wanted)
	if err != nil {
		return err
	}
	holders := map[string]bool{}
	for _, ids := range found.Holders {
		for _, id := range ids {
			holders[id] = true
		}
	}
	return t.readAccounts(ctx, census, holders, read)
}

// inScopes keeps the problems of ps that one of scopes covers.
func (t *Tracker) inScopes(ps []model.Problem, scopes []scope) []model.Problem {
	var kept []model.Problem
	for _, p := range ps {
		if slices.ContainsFunc(scopes, func(s scope) bool { return t.covers(s, p) }) {
			kept = append(kept, p)
		}
	}
	return kept
}

// byScope sorts the problems of ps into the scopes that cover them;
// ownerless orphans that are still there after their holders were looked
// for are confirmed, unless nobody could look (no finder).
func (t *Tracker) byScope(ps []model.Problem, scopes []scope) map[scope][]model.Problem {
	out := map[scope][]model.Problem{}
	for _, p := range ps {
		if model.NeedsRescan(p) && t.finder == nil {
			continue
		}
		for _, s := range scopes {
			if t.covers(s, p) {
				out[s] = append(out[s], p)
				break
			}
		}
	}
	return out
}

// covers reports whether problem p is one of scope s's.
func (t *Tracker) covers(s scope, p model.Problem) bool {
	if p.ConstraintIndex() != s.ci {
		return false
	}
	if s.account != "" {
		return p.Kind == model.InvalidValue && slices.Equal(p.Accounts, []string{s.account})
	}
	if p.Kind != model.InvalidValue {
		return p.Value == s.value
	}
	return p.Lock != nil && t.lockValue(p) == s.value
}

// lockValue is the raw value of the lock an invalid_value problem names
// (its owner is not a string), "" when it names none.
func (t *Tracker) lockValue(p model.Problem) string {
	if p.Lock == nil {
		return ""
	}
	table := p.LockTable
	if table == "" {
		table = t.schema.Table
	}
	e := model.Classifier{Schema: t.schema}.Classify(table, model.KeyItem(p.Lock))
	if e.Kind != model.EntryLock {
		return ""
	}
	return e.Value
}
