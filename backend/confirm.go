package backend

import (
	"context"
	"slices"

	"github.com/locktable/locktable/model"
)

// AddHolder records account it, under sc, as a holder of each of the
// wanted values it holds.
func (l *HolderLookup) AddHolder(sc *model.Schema, wanted []Wanted, it model.Item) {
	for _, w := range wanted {
		if h, v := sc.Held(w.Constraint, it); h == model.HoldsValue && v == w.Value {
			l.Holders[w] = append(l.Holders[w], sc.AccountID(it))
		}
	}
}

// ReadLocks sorts each value's holders and reads from src, consistently,
// whether each wanted value's lock exists and whom it names: with or
// without holders, an existing lock is what the guarded put will meet.
func (l *HolderLookup) ReadLocks(ctx context.Context, sc *model.Schema, src Reader, wanted []Wanted) error {
	for w, ids := range l.Holders {
		slices.Sort(ids)
		l.Holders[w] = slices.Compact(ids)
	}
	for _, w := range wanted {
		lock, _, err := LockAt(ctx, sc, src, w.Constraint, w.Value)
		if err != nil {
			return err
		}
		l.FoundLock(sc, w, lock)
	}
	return nil
}

// ConfirmHolders is a lookup for the holders of the wanted values when
// the holders to expect are known already (the terminal UI's finished
// check): candidates, for each value, are read from src with consistent
// reads, and those that still hold it are kept. Values without
// candidates have no holder.
func ConfirmHolders(ctx context.Context, sc *model.Schema, src Reader, wanted []Wanted, candidates map[Wanted][]string) (HolderLookup, error) {
	found := NewLookup("the check's findings, confirmed by consistent reads")
	var refs []model.KeyRef
	for _, w := range wanted {
		for _, id := range candidates[w] {
			refs = append(refs, model.KeyRef{Table: sc.Table, Key: sc.AccountKey(id)})
		}
	}
	err := src.ReadConsistent(ctx, refs, func(_ string, it model.Item) {
		if (model.Classifier{Schema: sc}).Classify(sc.Table, it).Kind == model.EntryAccount {
			found.ItemsRead++
			found.AddHolder(sc, wanted, it)
		}
	})
	if err != nil {
		return found, err
	}
	return found, found.ReadLocks(ctx, sc, src, wanted)
}
