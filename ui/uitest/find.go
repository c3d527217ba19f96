package uitest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// Find looks for what q names by the rules of dynamo.Store.Find: an
// account key (as given, or with the account prefix), a lock key pasted
// whole, or a value of any unique attribute, followed from its lock to its
// owner and looked up by value where the owner does not settle it; under
// --normalize none a lock under the lower case explains a miss.
func (b *Backend) Find(ctx context.Context, q string, o dynamo.FindOptions) (dynamo.Found, error) {
	b.called("Find")
	defer b.mu.Unlock()
	f := dynamo.Found{Query: q}
	sc := &b.schema
	seen := map[string]bool{}
	add := func(views ...model.AccountView) {
		for _, v := range views {
			if !seen[v.ID] {
				seen[v.ID] = true
				f.Accounts = append(f.Accounts, v)
			}
		}
	}
	ids := []string{q}
	if sc.AccountPrefix != "" && !strings.HasPrefix(q, sc.AccountPrefix) {
		ids = append(ids, sc.AccountPrefix+q)
	}
	for _, id := range ids {
		if a, found, _ := b.account(id); found {
			f.How = append(f.How, "account key "+id)
			add(a)
			return f, ctx.Err()
		}
	}
	constraints, value := b.lockKeyQuery(q)
	b.findValue(&f, constraints, value, o, add)
	if len(f.Accounts) > 0 || len(f.Orphans) > 0 {
		return f, ctx.Err()
	}
	for _, ci := range constraints {
		c := sc.Constraints[ci]
		lower := strings.ToLower(value)
		if c.Normalize != model.NormalizeNone || lower == value {
			continue
		}
		if b.get(sc.LockKey(ci, lower)) != nil {
			b.findValue(&f, []int{ci}, lower, o, add)
			f.Note = fmt.Sprintf("no %s is %s; found %s: %s compares values exactly (--normalize none), so case matters",
				c.Attr, model.Printable(value), model.Printable(lower), c.Attr)
			return f, ctx.Err()
		}
	}
	f.Note = "nothing matches " + model.Printable(q) + " (tried the account key and every unique attribute)"
	if slices.ContainsFunc(sc.Constraints, func(c model.Constraint) bool { return c.Normalize == model.NormalizeNone }) {
		f.Note += "; values are compared exactly, so case matters"
	}
	return f, ctx.Err()
}

// lockKeyQuery reads q as a lock key pasted whole, else as a value of any
// constraint.
func (b *Backend) lockKeyQuery(q string) ([]int, string) {
	for ci, c := range b.schema.Constraints {
		if c.InAccountTable() && c.Prefix != "" && strings.HasPrefix(q, c.Prefix) {
			return []int{ci}, strings.TrimPrefix(q, c.Prefix)
		}
	}
	all := make([]int, len(b.schema.Constraints))
	for ci := range all {
		all[ci] = ci
	}
	return all, q
}

// findValue follows value q of each constraint in cis, as the store does.
func (b *Backend) findValue(f *dynamo.Found, cis []int, q string, o dynamo.FindOptions, add func(...model.AccountView)) {
	sc := &b.schema
	var lookups []int
	var unowned []model.Problem
	for _, ci := range cis {
		v := sc.Constraints[ci].Normalize.Apply(q)
		table, key := sc.LockKey(ci, v)
		lock := b.get(table, key)
		if lock == nil {
			lookups = append(lookups, ci)
			continue
		}
		owner := ""
		if ov, ok := lock[sc.OwnerAttr]; ok && ov.Kind == model.KindS {
			owner = ov.S
		}
		lockText := "lock " + model.Printable(key[sc.LockPK(ci)])
		if owner == "" {
			f.How = append(f.How, lockText+": no owner")
			unowned = append(unowned, sc.LockProblem(model.OrphanLock, ci, v, owner))
			lookups = append(lookups, ci)
			continue
		}
		f.How = append(f.How, lockText+": owner "+model.Printable(owner))
		a, found, _ := b.account(owner)
		if !found {
			unowned = append(unowned, sc.LockProblem(model.OrphanLock, ci, v, owner))
			lookups = append(lookups, ci)
			continue
		}
		add(a)
		if h, hv := sc.Held(ci, a.Item); h != model.HoldsValue || hv != v || o.Known == nil {
			lookups = append(lookups, ci)
			continue
		}
		for _, id := range o.Known(ci, v) {
			if other, found, _ := b.account(id); found && id != a.ID {
				add(other)
			}
		}
	}
	for _, ci := range lookups {
		c := sc.Constraints[ci]
		byIndex := c.Index != "" && c.Normalize == model.NormalizeNone
		what := "scan for " + c.Attr + "=" + model.Printable(q)
		if byIndex {
			what = "index " + c.Index + " for " + c.Attr + "=" + model.Printable(q)
		}
		ids, _ := b.holderIDs(ci, c.Normalize.Apply(q))
		read := int64(len(b.tables[sc.Table])) // a scan examines every item
		if o.Progress != nil {
			o.Progress(what, read)
		}
		if byIndex {
			f.How = append(f.How, fmt.Sprintf("%s: %d found", what, len(ids)))
		} else {
			f.How = append(f.How, fmt.Sprintf("%s: %d items read, %d found", what, read, len(ids)))
		}
		if len(ids) == 0 {
			for _, u := range unowned {
				if u.ConstraintIndex() == ci {
					f.Orphans = append(f.Orphans, u)
				}
			}
		}
		for _, id := range ids {
			a, _, _ := b.account(id)
			add(a)
		}
	}
}
