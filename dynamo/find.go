package dynamo

import (
	"context"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// Find looks for what q names (see backend.Find), reading this store.
func (s *Lookup) Find(ctx context.Context, q string, o backend.FindOptions) (backend.Found, error) {
	return backend.Find(ctx, &s.Schema, finder{&Pages{s.core}, s}, q, model.Epoch(s.now()), o)
}

// finder is what a search reads: accounts and locks by key, and the
// holders of a value.
type finder struct {
	*Pages
	*Lookup
}
