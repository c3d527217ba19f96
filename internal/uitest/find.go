package uitest

import (
	"context"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// Find searches by the store's own rules (backend.Find) over the fake's
// Account, LockAt and Holders.
func (b *Backend) Find(ctx context.Context, q string, o backend.FindOptions) (backend.Found, error) {
	err := b.called("Find")
	b.mu.Unlock()
	if err != nil {
		return backend.Found{Query: q}, err
	}
	return backend.Find(ctx, &b.schema, b, q, model.Epoch(b.now()), o)
}
