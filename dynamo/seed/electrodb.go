package seed

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/locktable/locktable/model"
)

// The sample agent's composite attributes, as ElectroDB's documentation
// keys its examples: many agents share a designation (the partition
// key), each has its own id (the sort key).
const (
	electroPKAttr = "designation"
	electroSKAttr = "id"
)

// electroAgent is the i-th sample agent's whole key (PK|SK), composed the
// way ElectroDB composes an entity's keys, in the service and at the
// version the preset read or was given; it adds the composite attributes
// to attrs, and spells every fifth agent's first unique value in mixed
// case (the constraint's key lower-cased, its value as given: healthy).
func (s seeder) electroAgent(i int, attrs map[string]string) string {
	service, version := "", "1"
	for _, c := range s.sc.Constraints {
		if service = model.ServiceOf(c.Prefix); service != "" {
			break
		}
	}
	for _, a := range s.sc.AccountAttrs {
		if a.Attr == model.ElectroVersionAttr {
			version = a.Value
		}
	}
	designation, id := fmt.Sprintf("%02d", i%16), sampleID("a", i)
	attrs[electroPKAttr], attrs[electroSKAttr] = designation, id
	if first := s.sc.Constraints[0].Attr; i%5 == 2 {
		attrs[first] = strings.ToUpper(attrs[first][:1]) + attrs[first][1:]
	}
	pk := model.ElectroKey(true, model.ElectroPKHead(service), electroPKAttr, designation)
	sk := model.ElectroKey(true, model.ElectroSKHead(s.sc.AccountType.Value, version), electroSKAttr, id)
	return model.WholeKeyID(pk, sk)
}

// putPlanned writes the agent Planner's signup would write for id,
// outside its transaction, then the constraints listed in withLocks (by
// constraint index) one by one: ElectroDB's items exactly as the preset
// writes them, through code that skips the transaction.
func (s seeder) putPlanned(ctx context.Context, id string, attrs map[string]string, withLocks ...int) error {
	plan, err := model.Planner{Schema: s.sc}.Signup(id, attrs)
	if err != nil {
		return err
	}
	for _, a := range plan.Actions {
		if a.Role == model.RoleCreateAccount || (a.Role == model.RoleTakeLock && slices.Contains(withLocks, a.Constraint)) {
			if err := s.put(ctx, a.Table, a.Item); err != nil {
				return err
			}
		}
	}
	return nil
}

// plantElectro writes, after the n healthy agents, the mistakes code
// makes when it forgets ElectroDB's constraint, each on agents of its
// own: an agent created outside the transaction (missing_lock), a delete
// that leaves the constraint (orphan_lock), a second agent with a taken
// value (duplicate_value), and a changed value (its old constraint left,
// its new value without one). Constraints name no owner, so there is no
// foreign_lock to plant. It returns the number of cases planted.
func (s seeder) plantElectro(ctx context.Context, n int) (int, error) {
	next := n
	agent := func() (string, map[string]string) { next++; return s.sampleAccount(next - 1) }
	first := s.sc.Constraints[0].Attr
	steps := []func() error{
		func() error { id, attrs := agent(); return s.putAccount(ctx, id, attrs) },
		func() error {
			id, attrs := agent()
			if err := s.signup(ctx, id, attrs, false); err != nil {
				return err
			}
			return s.deleteAccount(ctx, id)
		},
		func() error { return s.duplicate(ctx, agent, false) },
		func() error {
			id, attrs := agent()
			if err := s.signup(ctx, id, attrs, false); err != nil {
				return err
			}
			attrs[first] = sampleValue(first, 1_000_000+next)
			next++
			return s.putAccount(ctx, id, attrs)
		},
	}
	cases := 0
	for range AnomaliesPerKind(n) {
		for _, step := range steps {
			if err := step(); err != nil {
				return cases, err
			}
			cases++
		}
	}
	return cases, nil
}
