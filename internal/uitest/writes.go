package uitest

import (
	"context"
	"fmt"
	"slices"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// Refuse reports plan p as cancelled because other accounts hold values it
// would lock.
func (b *Backend) Refuse(p model.Plan, taken []backend.Taken) model.Result {
	return b.prep.Refuse(p, taken)
}

// Prepare builds the exact request of a plan, as dynamo.Store does.
func (b *Backend) Prepare(p model.Plan, token string) (backend.Tx, error) {
	return b.prep.Prepare(p, token)
}

// Execute applies tx's actions if every condition holds, or none of them,
// with the failed ones explained slot by slot. An ownerless orphan's
// repair runs its three steps.
func (b *Backend) Execute(ctx context.Context, tx backend.Tx) (model.Result, error) {
	failure := b.called("Execute")
	b.mu.Lock()
	hold, arrived := b.hold, b.arrived
	b.mu.Unlock()
	if hold != nil {
		select {
		case <-arrived:
		default:
			close(arrived)
		}
		<-hold
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	res := model.Result{Operation: tx.Plan.Operation, Keys: tx.Plan.Keys, Token: tx.Token, Reasons: []model.Reason{}}
	if failure != nil {
		// As the store reports a connection that could not be made.
		res.Outcome = model.NotSent
		return res, failure
	}
	if !b.writable {
		res.Outcome = model.Refused
		return res, backend.ErrReadOnly
	}
	r := tx.Plan.Reclaim
	if r == nil || !r.Resume {
		if res.Outcome = b.send(tx.Plan, &res); res.Outcome != model.Committed || r == nil {
			return res, nil
		}
	}
	// The rest of a reclaim, as the store's, in a transaction of its own:
	// look for holders again, then delete the lock or give it back.
	l := dynamo.ReclaimLookup{Reclaim: *r, Found: b.lookup([]backend.Wanted{{Constraint: r.Constraint, Value: r.Value}})}
	step := l.Step(&b.schema, tx.Plan.Keys)
	res = model.Result{Operation: step.Operation, Keys: step.Keys, Token: backend.NewToken(), Reasons: []model.Reason{}}
	res.Outcome = b.send(step, &res)
	return l.Done(&b.schema, res), nil
}

// send is one transaction arriving: plan p's, under res's token. It
// journals the items p changes as they are before, applies p (or, for a
// lost write, nothing), and journals the outcome.
func (b *Backend) send(p model.Plan, res *model.Result) model.Outcome {
	b.tokens = append(b.tokens, res.Token)
	b.journal = append(b.journal, dynamo.Undoable{Record: model.UndoRecord{Token: res.Token, Operation: p.Operation,
		Table: b.schema.Table, Endpoint: b.prep.Endpoint.String(), Keys: append([]string{}, p.Keys...), Undoes: p.Undoes,
		Items: model.UndoItems(p, b.get)}})
	outcome := model.Unknown
	if b.lost > 0 {
		b.lost--
		res.Reasons = []model.Reason{{Slot: -1, Code: "Unknown", Message: "no answer came (uitest.LoseWrites)"}}
	} else {
		outcome = b.transact(p, res)
	}
	b.journal[len(b.journal)-1].Outcome = outcome
	return outcome
}

// transact applies p's actions if every condition holds (model.AllHold)
// and says committed; otherwise it applies none (but see LeakCancelled),
// and says skipped for a repair whose effect is there already
// (model.Classifier.AlreadyRepaired), as the store does, or puts each
// failed condition in words in res and says cancelled.
func (b *Backend) transact(p model.Plan, res *model.Result) model.Outcome {
	cl := model.Classifier{Schema: &b.schema}
	var failed []model.Failure
	var held []model.Action
	for i, a := range p.Actions {
		if now := b.get(a.Table, a.Key); !model.AllHold(a.Conds, now) {
			res.Reasons = append(res.Reasons, model.Reason{Slot: i, Action: a.Purpose(&b.schema), Code: "ConditionalCheckFailed", Message: cl.Explain(a, now)})
			failed = append(failed, model.Failure{Slot: i, Code: "ConditionalCheckFailed", Now: now})
		} else {
			held = append(held, a)
		}
	}
	if note, ok := cl.AlreadyRepaired(p, failed); ok {
		res.Reasons, res.Note = []model.Reason{}, note
		return model.Skipped
	}
	if len(res.Reasons) > 0 {
		if b.leaks > 0 {
			b.leaks--
			b.apply(held)
		}
		return model.Cancelled
	}
	b.apply(p.Actions)
	return model.Committed
}

// apply writes what actions do to the items at their keys.
func (b *Backend) apply(actions []model.Action) {
	for _, a := range actions {
		switch after := model.After(a, b.get(a.Table, a.Key)); {
		case a.Kind == model.ActCheck:
		case after == nil:
			delete(b.tables[a.Table], b.keyText(a.Table, func(n string) string { return a.Key[n] }))
		default:
			b.set(a.Table, after)
		}
	}
}

// UndoFrom is UndoToken: the fake's journal is its own (path "").
func (b *Backend) UndoFrom(ctx context.Context, path, token string) (model.Plan, error) {
	if path != "" {
		return model.Plan{}, fmt.Errorf("uitest: no undo journal at %s: the fake keeps its own", path)
	}
	return b.UndoToken(ctx, token)
}

// UndoToken plans the undo of the write with token, or ("") of the last
// committed one, from the journal, as dynamo.Store does from its own.
func (b *Backend) UndoToken(ctx context.Context, token string) (model.Plan, error) {
	if err := b.called("UndoToken"); err != nil {
		return model.Plan{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	journal := slices.Clone(b.journal)
	dynamo.MarkUndone(journal)
	u, err := b.prep.FindUndoable(journal, token)
	if err != nil {
		return model.Plan{}, err
	}
	return u.Plan(&b.schema, b.get)
}
