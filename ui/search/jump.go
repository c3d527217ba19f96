package search

import (
	"context"
	"fmt"
	"slices"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
)

// jump reads the accounts a problem involves, to show them pinned on top.
func jump(ctx context.Context, s Backend, prob model.Problem) (accounts.Pin, error) {
	p := accounts.Pin{Title: fmt.Sprintf("%s %s=%s", prob.Kind, prob.Constraint, model.Printable(prob.Value)), Problem: &prob}
	// A lock nobody holds is its own row: an orphan, or an expired lock
	// whose owner (if it names one) holds nothing.
	unheld := prob.Kind == model.OrphanLock || (prob.Kind == model.ExpiredLock && len(prob.Accounts) == 0)
	if unheld || (prob.Kind == model.InvalidValue && prob.Lock != nil) {
		p.Orphans = append(p.Orphans, prob)
	}
	ids := append([]string{}, prob.Accounts...)
	if prob.Owner != "" && !unheld && !slices.Contains(ids, prob.Owner) {
		ids = append(ids, prob.Owner) // a duplicate's holders include the owner
	}
	for _, aid := range ids {
		a, found, err := s.Account(ctx, aid)
		if err != nil {
			return p, err
		}
		if found {
			p.Accounts = append(p.Accounts, a)
		}
	}
	if len(p.Accounts) == 0 && len(p.Orphans) == 0 {
		p.Note = "these rows are gone: the problem may have been fixed (r reloads)"
	}
	return p, nil
}
