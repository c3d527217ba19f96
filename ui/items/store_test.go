package items

import (
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/locktable/locktable/model"
)

// TestAStoredBlockComesBackAsItWas: accounts put in the store leave the
// cache and come back from disk showing what they showed, a TTL, an
// account the compact form cannot hold (a number as its unique value)
// and an account that was not held (read again) among them.
func TestAStoredBlockComesBackAsItWas(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	c := New(&sc)
	ttl := view(&sc, "ACCT#b2", "b@x.io", "ACCT#b2")
	ttl.Locks[0].ExpiresAt, ttl.Now = 1_700_000_000, 1_600_000_000
	number := view(&sc, "ACCT#c3", "c@x.io", "ACCT#c3")
	number.Item["email"] = model.Value{Kind: model.KindN, S: "42"}
	for _, a := range []model.AccountView{view(&sc, "ACCT#a1", "a@x.io", "ACCT#a1"), ttl, number} {
		c.Put(a)
	}
	want := map[string]model.AccountView{}
	for _, id := range []string{"ACCT#a1", "ACCT#b2", "ACCT#c3"} {
		want[id], _ = c.Account(id)
	}
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := s.set.Dir()
	ids := []string{"ACCT#a1", "ACCT#b2", "ACCT#c3", "ACCT#d4"} // d4 is not held
	if err := s.Put(c, 7, ids, func(id string) bool { return id == "ACCT#b2" }); err != nil {
		t.Fatal(err)
	}
	if c.Has("ACCT#a1") || c.Has("ACCT#c3") || !c.Has("ACCT#b2") {
		t.Fatalf("after Put: a1 held %v, c3 held %v, b2 (kept) held %v", c.Has("ACCT#a1"), c.Has("ACCT#c3"), c.Has("ACCT#b2"))
	}
	written := s.Bytes()
	got, unread, err := s.Get(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, ids) || !slices.Equal(unread, []string{"ACCT#d4"}) {
		t.Fatalf("Get: %v, unread %v; want %v, unread [ACCT#d4]", got, unread, ids)
	}
	for id, w := range want {
		if a, ok := c.Account(id); !ok || !reflect.DeepEqual(a, w) {
			t.Errorf("%s back from disk:\n got %+v\nwant %+v", id, a, w)
		}
	}
	if err := s.Put(c, 7, ids, nil); err != nil || s.Bytes() != written {
		t.Errorf("a block put again as it was: %v, the file grew from %d to %d bytes", err, written, s.Bytes())
	}
	if _, _, err := s.Get(c, 8); err == nil {
		t.Error("a block never put came back")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the store's directory is still there after Close: %v", err)
	}
}

// TestCloseStoresRemovesTheirFiles: the stores the UI left open when it
// ended are removed.
func TestCloseStoresRemovesTheirFiles(t *testing.T) {
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := s.set.Dir()
	if err := CloseStores(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a store's directory is still there after CloseStores: %v", err)
	}
}
