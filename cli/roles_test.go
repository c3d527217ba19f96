package cli

import (
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestUIRolesAreTheStoresRoles: the terminal UI is handed each role of
// the store, not the store as a whole, and offers writes only when the
// store may write.
func TestUIRolesAreTheStoresRoles(t *testing.T) {
	t.Parallel()
	store := dynamo.NewStore(nil, backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}, model.DefaultSchema(model.LayoutSingle), clock.System())
	r := uiRoles(store)
	if r.Pages != store.Pages || r.Check != store.Checker || r.Lookup != store.Lookup || r.Writer != store.Writer || r.Tables != store {
		t.Errorf("roles %+v: want the store's Pages, Checker, Lookup, Writer, and the store for its tables", r)
	}
	if r.Writable {
		t.Error("a new store is read-only, but the UI would offer writes")
	}
	store.SetWritable(true)
	if !uiRoles(store).Writable {
		t.Error("a writable store, but the UI would not offer writes")
	}
}
