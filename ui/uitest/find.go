package uitest

import (
	"context"

	"github.com/locktable/locktable/dynamo"
)

// Find searches by the store's own rules (dynamo.Find) over the fake's
// Account, LockAt and Holders.
func (b *Backend) Find(ctx context.Context, q string, o dynamo.FindOptions) (dynamo.Found, error) {
	err := b.called("Find")
	b.mu.Unlock()
	if err != nil {
		return dynamo.Found{Query: q}, err
	}
	return dynamo.Find(ctx, &b.schema, b, q, o)
}
