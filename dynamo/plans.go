package dynamo

import (
	"context"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// byKey is what the store answers from its consistent reads by key: the
// same code the terminal UI's in-memory fake answers with.
func (s *core) byKey() backend.ByKey {
	return backend.ByKey{Schema: &s.Schema, Src: s.reader(), Endpoint: s.Endpoint, Now: func() int64 { return model.Epoch(s.now()) }}
}

// PlanRename loads account id with a consistent read and plans changing
// its unique attributes, guarded on seen where a person was shown the
// account (see model.Planner.Rename; nil headless).
func (s *Writer) PlanRename(ctx context.Context, id string, changes map[string]string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	return s.byKey().PlanRename(ctx, id, changes, others, seen)
}

// PlanDelete loads account id with a consistent read and plans deleting it
// with its locks, guarded on seen where a person was shown the account
// (nil headless).
func (s *Writer) PlanDelete(ctx context.Context, id string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	return s.byKey().PlanDelete(ctx, id, others, seen)
}

// PlanRepair re-reads what problem p involves with consistent reads and
// plans its repair (backend.PlanRepair), judging TTLs now.
func (s *Writer) PlanRepair(ctx context.Context, p model.Problem) (backend.Repair, error) {
	return s.byKey().PlanRepair(ctx, p)
}
