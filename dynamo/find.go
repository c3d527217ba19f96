package dynamo

import (
	"context"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// Find looks for what q names (see backend.Find), reading this store.
func (s *Lookup) Find(ctx context.Context, q string, o backend.FindOptions) (backend.Found, error) {
	return backend.Find(ctx, &s.Schema, s, q, model.Epoch(s.now()), o)
}
