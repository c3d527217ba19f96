package dynamo

import (
	"context"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// Find looks for what q names (see backend.Find), reading this store.
func (s *Store) Find(ctx context.Context, q string, o backend.FindOptions) (backend.Found, error) {
	if o.Now == 0 {
		o.Now = model.Epoch(s.now())
	}
	return backend.Find(ctx, &s.Schema, s, q, o)
}
