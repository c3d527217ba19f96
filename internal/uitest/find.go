package uitest

import (
	"context"

	"github.com/locktable/locktable/backend"
)

// Find searches by the store's own rules (backend.Find) over the fake's
// Account, LockAt and Holders.
func (b *Backend) Find(ctx context.Context, q string, o backend.FindOptions) (backend.Found, error) {
	if err := b.called("Find"); err != nil {
		return backend.Found{Query: q}, err
	}
	return backend.Find(ctx, &b.schema, b, q, b.now(), o)
}
