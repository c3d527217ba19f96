// Package replay replays, on fresh accounts, each mistake of package
// model/mistake, so that the problem it leaves can be watched appearing
// (locktable demo break KIND): the requests the buggy code sends, beside
// the guarded transaction locktable would send.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/mistake"
)

// replays are the mistakes by name, each replayed by its method.
var replays = map[string]func(*replayer) error{
	"missing-lock":  (*replayer).missingLock,
	"gsi-duplicate": (*replayer).gsiDuplicate,
	"rename-leak":   (*replayer).renameLeak,
	"delete-leak":   (*replayer).deleteLeak,
	"foreign-lock":  (*replayer).foreignLock,
	// A table without a TTL attribute cannot replay it: Run says so.
	"lapsed-reservation": (*replayer).lapsedReservation,
}

// replayer replays one mistake through a store.
type replayer struct {
	ctx   context.Context
	store *dynamo.Store
	sc    *model.Schema
	out   mistake.Replay
	refs  []model.KeyRef // what to read afterwards
}

// Run replays mistake k on fresh accounts. The store must be writable;
// the caller decides where that is allowed (the demo, a loopback table).
func Run(ctx context.Context, store *dynamo.Store, k mistake.Kind) (mistake.Replay, error) {
	r := &replayer{ctx: ctx, store: store, sc: &store.Schema,
		out: mistake.Replay{Kind: k.Name, Problem: k.Problem, Story: k.Story, Setup: []string{}, Accounts: []string{},
			Sent: []json.RawMessage{}, Guarded: []json.RawMessage{}}}
	replay, ok := replays[k.Name]
	if !ok {
		return r.out, fmt.Errorf("no replay of mistake %q", k.Name)
	}
	if err := replay(r); err != nil {
		return r.out, err
	}
	census := model.NewCensus(r.sc, model.Epoch(store.Clock.Now()))
	if err := store.Pages.ReadConsistent(ctx, r.refs, census.Add); err != nil {
		return r.out, err
	}
	r.out.Found = census.Problems()
	return r.out, nil
}

// account makes a fresh account: its id, and a value of its own for each
// unique attribute.
func (r *replayer) account() (string, map[string]string) {
	id := model.AccountIDs{Schema: r.sc}.New()
	suffix := strings.TrimPrefix(id, r.sc.AccountPrefix)
	attrs := map[string]string{}
	for _, c := range r.sc.Constraints {
		attrs[c.Attr] = value(c.Attr, suffix)
	}
	r.out.Accounts = append(r.out.Accounts, id)
	return id, attrs
}

// value is a fresh value of attr that looks like what it holds.
func value(attr, suffix string) string {
	if strings.Contains(strings.ToLower(attr), "mail") {
		return "break-" + suffix + "@example.org"
	}
	return "break-" + suffix
}

// involve adds an account item and its expected locks to what is read
// afterwards.
func (r *replayer) involve(account model.Item) {
	id := r.sc.AccountID(account)
	r.refs = append(r.refs, model.KeyRef{Table: r.sc.Table, Key: r.sc.AccountKey(id)})
	r.refs = append(r.refs, model.Classifier{Schema: r.sc}.ExpectedLocks(account)...)
}

// signupPlan plans the signup of id with attrs, records it as the
// guarded transaction locktable would send, and returns the items it
// puts: the account's, then each lock's.
func (r *replayer) signupPlan(id string, attrs map[string]string) (account model.Item, locks []model.Action, err error) {
	p, err := model.Planner{Schema: r.sc}.Signup(id, attrs)
	if err == nil {
		err = r.guarded(p, nil)
	}
	if err != nil {
		return nil, nil, err
	}
	r.involve(p.Actions[0].Item)
	return p.Actions[0].Item, p.Actions[1:], nil
}

// guarded records the transaction locktable would send for plan p.
func (r *replayer) guarded(p model.Plan, err error) error {
	if err != nil {
		return err
	}
	tx, err := r.store.Writer.Prepare(p, backend.NewToken())
	if err != nil {
		return err
	}
	doc, err := tx.Request.CLIInput()
	if err != nil {
		return err
	}
	r.out.Guarded = append(r.out.Guarded, doc)
	return nil
}

// send sends a buggy request and records it.
func (r *replayer) send(u dynamo.Unguarded, err error) error {
	if err != nil {
		return err
	}
	doc, err := u.MarshalJSON()
	if err != nil {
		return err
	}
	r.out.Sent = append(r.out.Sent, doc)
	return r.store.Seeder.SendUnguarded(r.ctx, u)
}

// put sends a plain put of it into table, under conds if any.
func (r *replayer) put(table string, it model.Item, conds ...model.Cond) error {
	return r.send(r.store.Seeder.PutRequest(table, it, conds...))
}

// signup writes a fresh account with its locks the right way, as setup,
// and returns the account as read back.
func (r *replayer) signup() (model.AccountView, error) {
	id, attrs := r.account()
	p, err := model.Planner{Schema: r.sc}.Signup(id, attrs)
	if err != nil {
		return model.AccountView{}, err
	}
	r.involve(p.Actions[0].Item)
	tx, err := r.store.Writer.Prepare(p, backend.NewToken())
	if err != nil {
		return model.AccountView{}, err
	}
	cancelled, err := r.store.Seeder.SendOnce(r.ctx, tx)
	if err == nil && cancelled {
		err = fmt.Errorf("the setup signup of %s was cancelled", id)
	}
	if err != nil {
		return model.AccountView{}, err
	}
	r.out.Setup = append(r.out.Setup, "signed up "+id+" with its locks in one guarded transaction")
	a, _, err := r.store.Pages.Account(r.ctx, id)
	return a, err
}

func (r *replayer) missingLock() error {
	account, _, err := r.signupPlan(r.account())
	if err != nil {
		return err
	}
	// The account, then the process dies before the lock puts.
	return r.put(r.sc.Table, account)
}

func (r *replayer) gsiDuplicate() error {
	a, attrs := r.account()
	b := model.AccountIDs{Schema: r.sc}.New()
	r.out.Accounts = append(r.out.Accounts, b)
	var conds []model.Cond
	for _, c := range r.sc.Constraints {
		conds = append(conds, model.Cond{Kind: model.CondNotExists, Attr: c.Attr})
	}
	var accounts []model.Item
	var locks []model.Action
	for _, id := range []string{a, b} {
		account, l, err := r.signupPlan(id, attrs)
		if err != nil {
			return err
		}
		accounts, locks = append(accounts, account), append(locks, l...)
	}
	// Both conditions see only the new item: both puts succeed.
	for _, account := range accounts {
		if err := r.put(r.sc.Table, account, conds...); err != nil {
			return err
		}
	}
	for _, l := range locks {
		if err := r.put(l.Table, l.Item); err != nil {
			return err
		}
	}
	return nil
}

func (r *replayer) renameLeak() error {
	a, err := r.signup()
	if err != nil {
		return err
	}
	first := r.sc.Constraints[0].Attr
	renamed := value(first, "renamed-"+strings.TrimPrefix(a.ID, r.sc.AccountPrefix))
	p, err := r.store.Writer.PlanRename(r.ctx, a.ID, map[string]string{first: renamed}, nil, nil)
	if err := r.guarded(p, err); err != nil {
		return err
	}
	account := maps.Clone(a.Item)
	account[first] = model.S(renamed)
	r.involve(account)
	if err := r.put(r.sc.Table, account); err != nil {
		return err
	}
	for _, act := range p.Actions {
		if act.Role == model.RoleTakeLock { // and the old lock is never deleted
			if err := r.put(act.Table, act.Item); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *replayer) deleteLeak() error {
	a, err := r.signup()
	if err != nil {
		return err
	}
	if err := r.guarded(r.store.Writer.PlanDelete(r.ctx, a.ID, nil, nil)); err != nil {
		return err
	}
	return r.send(dynamo.DeleteRequest(r.sc.Table, r.sc.AccountKey(a.ID)), nil)
}

func (r *replayer) foreignLock() error {
	holder, err := r.signup()
	if err != nil {
		return err
	}
	other, err := r.signup()
	if err != nil {
		return err
	}
	l := holder.Locks[0]
	if l.Item == nil {
		return fmt.Errorf("the setup signup of %s wrote no %s lock", holder.ID, r.sc.Constraints[0].Attr)
	}
	// locktable hands a lock over only with a check that the new owner
	// holds its value: this transaction would be cancelled.
	attr := r.sc.Constraints[0].Attr
	p := model.Classifier{Schema: r.sc}.HolderProblem(model.ForeignLock, 0, l.Value, holder.ID, []string{other.ID})
	to := model.AccountView{ID: other.ID, Item: model.Item{attr: holder.Item[attr]}}
	if err := r.guarded(model.Planner{Schema: r.sc}.RepairForeign(p, l.Item, to)); err != nil {
		return err
	}
	lock := maps.Clone(l.Item)
	lock[r.sc.OwnerAttr] = model.S(other.ID)
	table, _ := r.sc.LockKey(0, l.Value)
	return r.put(table, lock)
}

// reservationTTL is how long the replayed signup reserves its values, and
// reservedAgo how long before the replay it did: the reservation has
// lapsed by a minute.
const (
	reservationTTL = 15 * time.Minute
	reservedAgo    = 16 * time.Minute
)

func (r *replayer) lapsedReservation() error {
	for ci := range r.sc.Constraints {
		if r.sc.LockTTLAttr(ci) == "" {
			return fmt.Errorf("the %s locks have no TTL attribute, so no reservation can lapse: give the table one (--ttl-attr)", r.sc.Constraints[ci].Attr)
		}
	}
	account, locks, err := r.signupPlan(r.account())
	if err != nil {
		return err
	}
	// Each value reserved with the guard a signup uses, the TTL set to
	// when the reservation made reservedAgo ended.
	ttl := model.N(strconv.FormatInt(r.store.Clock.Now().Add(reservationTTL-reservedAgo).Unix(), 10))
	for _, l := range locks {
		lock := maps.Clone(l.Item)
		lock[r.sc.LockTTLAttr(l.Constraint)] = ttl
		if err := r.put(l.Table, lock, l.Conds...); err != nil {
			return err
		}
	}
	// The account, then the process dies before removing the TTLs.
	return r.put(r.sc.Table, account)
}
