package ui

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
)

func TestUndoTakesBackTheLastWriteOfTheSession(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	sc := store.Schema()
	item := func(key map[string]string) string {
		it, _ := store.Item(sc.Table, key)
		return model.Printable(string(must(it.MarshalJSON())))
	}
	account, oldLock, newLock := sc.AccountKey("ACCT#a1"), lockKey("UNIQ#EMAIL#ada@x.io"), lockKey("UNIQ#EMAIL#ada@new.io")
	before := []string{item(account), item(oldLock), item(newLock)}

	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	if s := d.screen(); !strings.Contains(s, "u undo") {
		t.Fatalf("the help line does not offer u:\n%s", s)
	}
	d.press("u")
	if d.m.layers.write.Open() || !strings.Contains(d.screen(), "nothing to undo") {
		t.Fatalf("u with no write in the session:\n%s", d.screen())
	}

	renameADA(d, "email", "ada@new.io")
	waitScreen(d, "the preview", "put lock UNIQ#EMAIL#ada@new.io (owner ACCT#a1)")
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	d.press("enter")
	renamed := []string{item(account), item(oldLock), item(newLock)}

	d.press("u")
	waitScreen(d, "the undo's preview", "set account ACCT#a1 back as it was")
	s := strings.Join(strings.Fields(d.screen()), " ")
	for _, want := range []string{"undo rename ACCT#a1", "put lock UNIQ#EMAIL#ada@x.io (owner ACCT#a1)",
		"delete lock UNIQ#EMAIL#ada@new.io, which that write created", `"ClientRequestToken": "`} {
		if !strings.Contains(s, want) {
			t.Fatalf("the preview does not say %q:\n%s", want, d.screen())
		}
	}
	if got := []string{item(account), item(oldLock), item(newLock)}; strings.Join(got, "\n") != strings.Join(renamed, "\n") {
		t.Fatalf("the preview wrote: %q", got)
	}
	d.press("enter")
	waitScreen(d, "the undo's result", "COMMITTED")
	d.press("enter")
	if got := []string{item(account), item(oldLock), item(newLock)}; strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("after undo:\n got %q\nwant %q", got, before)
	}

	// u again takes the undo back: a redo of the rename, so named (not
	// "undo undo"), and the rename is there again.
	redo(d, "redo rename ACCT#a1")
	if got := []string{item(account), item(oldLock), item(newLock)}; strings.Join(got, "\n") != strings.Join(renamed, "\n") {
		t.Fatalf("after undoing the undo:\n got %q\nwant %q", got, renamed)
	}
}

func TestUndoOnAReadOnlyStoreSaysWhy(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Control.SetWritable(false)
	d := newDriver(t, Options{Roles: roles(store), ReadOnly: true, ReadOnlyWhy: "refusing to write: --read-only is set"}, 120, 40)
	d.ready()
	d.press("u")
	if d.m.layers.write.Open() || !strings.Contains(d.screen(), "u undo: read-only, refusing to write: --read-only is set") {
		t.Fatalf("u on a read-only store:\n%s", d.screen())
	}
	if store.Control.Calls("UndoToken") != 0 {
		t.Fatal("u on a read-only store planned an undo")
	}
}

func lockKey(pk string) map[string]string { return map[string]string{"PK": pk, "SK": "LOCK"} }

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestUndoAfterARace: the race's winner is the session's last write; u
// deletes its account and lock again.
func TestUndoAfterARace(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := raceRacer(t, store)
	d.press("enter")
	lock, found := store.Item(store.Schema().Table, lockKey("UNIQ#EMAIL#racer@x.io"))
	if !found {
		t.Fatal("no winner's lock after the race")
	}
	winner := lock["owner"].S
	d.press("u")
	waitScreen(d, "the undo's preview", "delete lock UNIQ#EMAIL#racer@x.io, which that write created")
	d.press("enter")
	waitScreen(d, "the winner's account typed back", "type "+winner)
	d.typeText(winner)
	d.press("enter")
	waitScreen(d, "the undo's result", "COMMITTED")
	if _, found := store.Item(store.Schema().Table, lockKey("UNIQ#EMAIL#racer@x.io")); found {
		t.Fatal("the winner's lock is still there after undo")
	}
	sc := store.Schema()
	if _, found := store.Item(sc.Table, sc.AccountKey(winner)); found {
		t.Fatal("the winner's account is still there after undo")
	}
}

// raceRacer opens the UI on store and races ten signups for
// racer@x.io, up to the verdict.
func raceRacer(t *testing.T, store *uitest.Backend) *driver {
	t.Helper()
	d := startRace(t, store)
	waitScreen(d, "the verdict", "1 of 10 racers committed: the guards held")
	return d
}

// startRace opens the UI on store and starts ten signups racing for
// racer@x.io.
func startRace(t *testing.T, store *uitest.Backend) *driver {
	t.Helper()
	return startRaceSized(t, store, 120, 40)
}

// startRaceSized is startRace in a terminal of width x height.
func startRaceSized(t *testing.T, store *uitest.Backend, width, height int) *driver {
	t.Helper()
	d := newDriver(t, Options{Roles: roles(store)}, width, height)
	d.ready()
	d.press("R")
	waitScreen(d, "the race form", "race: new accounts claim the same values at once")
	d.send(ctrlU())
	d.typeText("racer@x.io")
	d.press("enter")
	waitScreen(d, "the preview", "10 racers send this transaction at the same instant")
	d.press("y")
	return d
}
