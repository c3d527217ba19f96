// Package mistake replays, on fresh accounts, each way the articles
// describe of getting uniqueness wrong, so that the problem it leaves can
// be watched appearing (locktable demo break KIND): the requests the
// buggy code sends, beside the guarded transaction locktable would send.
package mistake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// Kind is one mistake: its name on the command line, the problem kind a
// check then shows, and what the buggy code does, in words.
type Kind struct {
	Name    string
	Problem model.ProblemKind
	Story   string
	replay  func(r *replayer) error
}

// Kinds are the mistakes, in the order the articles tell them.
var Kinds = []Kind{
	{"missing-lock", model.MissingLock,
		"a signup written with separate puts, no transaction, that dies after the account: its locks are never written",
		(*replayer).missingLock},
	{"gsi-duplicate", model.DuplicateValue,
		"the GSI misconception: two writers sign up with the same values at once, each guarding its put with attribute_not_exists on the unique attributes, which sees only the new item being written; both succeed, and each then puts the locks as if the values were its own",
		(*replayer).gsiDuplicate},
	{"rename-leak", model.OrphanLock,
		"a rename that writes the account and the new lock but never deletes the old lock",
		(*replayer).renameLeak},
	{"delete-leak", model.OrphanLock,
		"a delete of the account alone: its locks stay behind",
		(*replayer).deleteLeak},
	{"foreign-lock", model.ForeignLock,
		"a lock handed to the wrong account: overwritten with another account as its owner while its holder keeps the value",
		(*replayer).foreignLock},
}

// Names lists the kinds' names.
func Names() []string {
	var out []string
	for _, k := range Kinds {
		out = append(out, k.Name)
	}
	return out
}

// Find returns the kind named name.
func Find(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Replay is what replaying a mistake did.
type Replay struct {
	Kind    string            `json:"kind"`
	Problem model.ProblemKind `json:"problem"`
	Story   string            `json:"story"`
	// Setup says what was written first, through the pattern.
	Setup    []string `json:"setup"`
	Accounts []string `json:"accounts"`
	// Sent are the buggy requests, in order, as the AWS CLI takes them;
	// Guarded the transactions locktable would send instead
	// (transact-write-items --cli-input-json).
	Sent    []dynamo.Unguarded `json:"sent"`
	Guarded []json.RawMessage  `json:"guarded"`
	// Found is what consistent reads of the keys involved show now.
	Found []model.Problem `json:"found"`
}

// Lines is the replay in words, one line each, every string from the
// table made printable: the story, what was set up, the requests sent
// outside any transaction (as the AWS CLI takes them), the transaction
// locktable would send instead, and what the keys show now. Each request
// is one line, or, indented, one member a line (for a screen, where a
// long line would wrap inside a token).
func (r Replay) Lines(indented bool) ([]string, error) {
	request := func(doc []byte) []string {
		text := model.EscapeJSON(string(doc))
		var pretty bytes.Buffer
		if indented && json.Indent(&pretty, []byte(text), "  ", "  ") == nil {
			return strings.Split("  "+pretty.String(), "\n")
		}
		return []string{"  " + text}
	}
	lines := []string{fmt.Sprintf("%s: %s", r.Kind, r.Story)}
	for _, s := range r.Setup {
		lines = append(lines, "set up: "+model.Printable(s))
	}
	lines = append(lines, "sent, outside any transaction (aws dynamodb put-item / delete-item --cli-input-json):")
	for _, u := range r.Sent {
		doc, err := u.MarshalJSON()
		if err != nil {
			return nil, err
		}
		lines = append(lines, request(doc)...)
	}
	lines = append(lines, "locktable would send instead (aws dynamodb transact-write-items --cli-input-json):")
	for _, g := range r.Guarded {
		lines = append(lines, request(g)...)
	}
	lines = append(lines, fmt.Sprintf("now (consistent reads of the keys involved): %d problem(s); locktable check shows them, locktable repair fixes what it can", len(r.Found)))
	for _, p := range r.Found {
		line := fmt.Sprintf("%s %s=%s", p.Kind, p.Constraint, p.Value)
		if len(p.Accounts) > 0 {
			line += " held by " + strings.Join(p.Accounts, ", ")
		}
		if p.Owner != "" {
			line += "; the lock names " + p.Owner
		}
		lines = append(lines, "  "+model.Printable(line))
	}
	return lines, nil
}

// replayer replays one mistake through a store.
type replayer struct {
	ctx   context.Context
	store *dynamo.Store
	sc    *model.Schema
	out   Replay
	refs  []model.KeyRef // what to read afterwards
}

// Run replays mistake k on fresh accounts. The store must be writable;
// the caller decides where that is allowed (the demo, a loopback table).
func Run(ctx context.Context, store *dynamo.Store, k Kind) (Replay, error) {
	r := &replayer{ctx: ctx, store: store, sc: &store.Schema,
		out: Replay{Kind: k.Name, Problem: k.Problem, Story: k.Story, Setup: []string{}, Accounts: []string{},
			Sent: []dynamo.Unguarded{}, Guarded: []json.RawMessage{}}}
	if err := k.replay(r); err != nil {
		return r.out, err
	}
	census := model.NewCensus(r.sc)
	if err := store.ReadConsistent(ctx, r.refs, census.Add); err != nil {
		return r.out, err
	}
	r.out.Found = census.Problems()
	return r.out, nil
}

// account makes a fresh account: its id, and a value of its own for each
// unique attribute.
func (r *replayer) account() (string, map[string]string) {
	id := r.sc.NewAccountID()
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
	id := account[r.sc.PK].S
	r.refs = append(r.refs, model.KeyRef{Table: r.sc.Table, Key: r.sc.AccountKey(id)})
	r.refs = append(r.refs, model.Classifier{Schema: r.sc}.ExpectedLocks(account)...)
}

// signupPlan plans the signup of id with attrs, records it as the
// guarded transaction locktable would send, and returns the items it
// puts: the account's, then each lock's.
func (r *replayer) signupPlan(id string, attrs map[string]string) (account model.Item, locks []model.Action, err error) {
	p, err := r.sc.Signup(id, attrs)
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
	tx, err := r.store.Prepare(p, dynamo.NewToken())
	if err != nil {
		return err
	}
	doc, err := dynamo.CLIJSON(tx.Input)
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
	r.out.Sent = append(r.out.Sent, u)
	return r.store.SendUnguarded(r.ctx, u)
}

// put sends a plain put of it into table, under conds if any.
func (r *replayer) put(table string, it model.Item, conds ...model.Cond) error {
	return r.send(dynamo.PutRequest(table, it, conds...))
}

// signup writes a fresh account with its locks the right way, as setup,
// and returns the account as read back.
func (r *replayer) signup() (model.AccountView, error) {
	id, attrs := r.account()
	p, err := r.sc.Signup(id, attrs)
	if err != nil {
		return model.AccountView{}, err
	}
	r.involve(p.Actions[0].Item)
	tx, err := r.store.Prepare(p, dynamo.NewToken())
	if err != nil {
		return model.AccountView{}, err
	}
	cancelled, err := r.store.SendOnce(r.ctx, tx)
	if err == nil && cancelled {
		err = fmt.Errorf("the setup signup of %s was cancelled", id)
	}
	if err != nil {
		return model.AccountView{}, err
	}
	r.out.Setup = append(r.out.Setup, "signed up "+id+" with its locks in one guarded transaction")
	a, _, err := r.store.Account(r.ctx, id)
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
	b := r.sc.NewAccountID()
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
	p, err := r.store.PlanRename(r.ctx, a.ID, map[string]string{first: renamed}, nil, nil)
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
	if err := r.guarded(r.store.PlanDelete(r.ctx, a.ID, nil, nil)); err != nil {
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
	p := r.sc.HolderProblem(model.ForeignLock, 0, l.Value, holder.ID, []string{other.ID})
	to := model.AccountView{ID: other.ID, Item: model.Item{attr: holder.Item[attr]}}
	if err := r.guarded(model.Planner{Schema: r.sc}.RepairForeign(p, l.Item, to)); err != nil {
		return err
	}
	lock := maps.Clone(l.Item)
	lock[r.sc.OwnerAttr] = model.S(other.ID)
	table, _ := r.sc.LockKey(0, l.Value)
	return r.put(table, lock)
}
