package search

import (
	"context"
	"fmt"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
)

// find finds what q names: an account by its key, or an account by a
// value of a constraint (its lock, then the lock's owner; a lock without
// owner, or no lock, by looking for holders, which may scan).
func find(ctx context.Context, s Backend, sc *model.Schema, q string, progress func(string, int64)) (accounts.Pin, error) {
	p := accounts.Pin{Title: "search: " + model.Printable(q)}
	if a, found, err := s.Account(ctx, q); err != nil || found {
		p.Accounts = append(p.Accounts, a)
		return p, err
	}
	seen := map[string]bool{}
	add := func(views ...model.AccountView) {
		for _, v := range views {
			if !seen[v.ID] {
				seen[v.ID] = true
				p.Accounts = append(p.Accounts, v)
			}
		}
	}
	var unowned []model.Problem // locks found that name nobody, or nobody there
	var foreign []int           // constraints whose lock's owner does not hold q
	for ci := range sc.Constraints {
		v := sc.Constraints[ci].Normalize.Apply(q)
		lock, found, err := s.Lock(ctx, ci, q)
		if err != nil {
			return p, err
		}
		if !found {
			continue
		}
		owner := ""
		if o, ok := lock[sc.OwnerAttr]; ok && o.Kind == model.KindS {
			owner = o.S
		}
		if owner != "" {
			a, found, err := s.Account(ctx, owner)
			if err != nil {
				return p, err
			}
			if found {
				add(a)
				if h, hv := sc.Held(ci, a.Item); h != model.HoldsValue || hv != v {
					foreign = append(foreign, ci)
				}
				continue
			}
		}
		unowned = append(unowned, sc.LockProblem(model.OrphanLock, ci, v, owner))
	}
	if len(p.Accounts) > 0 && len(unowned) == 0 && len(foreign) == 0 {
		return p, nil
	}
	// No owner to follow: look for holders by value (GSI, else a scan), for
	// the locks that name nobody, or for every attribute when no lock exists.
	scan := foreign
	for _, u := range unowned {
		scan = append(scan, u.ConstraintIndex())
	}
	if len(scan) == 0 && len(p.Accounts) == 0 {
		for ci := range sc.Constraints {
			scan = append(scan, ci)
		}
	}
	for _, ci := range scan {
		attr := sc.Constraints[ci].Attr
		views, err := s.Holders(ctx, ci, q, func(n int64) { progress("scanning for "+attr+"="+model.Printable(q), n) })
		if err != nil {
			return p, err
		}
		if len(views) == 0 {
			for _, u := range unowned {
				if u.ConstraintIndex() == ci {
					p.Orphans = append(p.Orphans, u) // a lock nobody holds
				}
			}
		}
		add(views...)
	}
	if len(p.Accounts) == 0 && len(p.Orphans) == 0 {
		p.Note = "nothing matches " + model.Printable(q) + " (tried the account key and every unique attribute)"
	}
	return p, nil
}

// jump reads the accounts a problem involves, to show them pinned on top.
func jump(ctx context.Context, s Backend, prob model.Problem) (accounts.Pin, error) {
	p := accounts.Pin{Title: fmt.Sprintf("%s %s=%s", prob.Kind, prob.Constraint, model.Printable(prob.Value))}
	if prob.Kind == model.OrphanLock || (prob.Kind == model.InvalidValue && prob.Lock != nil) {
		p.Orphans = append(p.Orphans, prob)
	}
	ids := append([]string{}, prob.Accounts...)
	if prob.Owner != "" && prob.Kind != model.OrphanLock {
		ids = append(ids, prob.Owner)
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
