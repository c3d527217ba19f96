package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
)

// pinAccount searches q and waits until the dialog-free accounts view
// shows its result, with the account row selected.
func pinAccount(d *driver, q string) {
	d.t.Helper()
	d.search(q)
	d.until("the search result", func(m *Model) bool { return m.views.accounts.Pinned() && !m.layers.search.Busy() })
}

// waitScreen waits until the screen shows text.
func waitScreen(d *driver, what, text string) {
	d.t.Helper()
	d.until(what, func(m *Model) bool { return strings.Contains(d.screen(), text) })
}

// deletePinned searches q, deletes the account it pins with key typed
// back, and waits for the committed result, left open.
func deletePinned(d *driver, q, key string) {
	d.t.Helper()
	pinAccount(d, q)
	d.press("d")
	waitScreen(d, "the typed confirmation", "type "+key+" to send")
	d.typeText(key)
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
}

func ctrlU() tea.KeyPressMsg { return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl} }

func TestFixMissingLock(t *testing.T) {
	t.Parallel()
	store, _ := planted(t)
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	pinAccount(d, "bob")
	d.press("down", "down")
	if !strings.Contains(d.selected(), "UNIQ#HANDLE#bob") || !strings.Contains(d.selected(), "missing") {
		t.Fatalf("selected %q, want the missing username lock", d.selected())
	}
	d.press("f")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#bob (owner ACCT#b2)")
	if s := d.screen(); !strings.Contains(s, "check account ACCT#b2") || !strings.Contains(s, `"ClientRequestToken": "`) {
		t.Fatalf("preview:\n%s", s)
	}
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	d.press("enter")
	d.until("the row reloaded", func(m *Model) bool {
		return strings.Contains(strings.Join(strings.Fields(d.screen()), " "), "└ UNIQ#HANDLE#bob owner ACCT#b2 ok")
	})
	if _, found, err := store.Pages.Lock(context.Background(), 1, "bob"); err != nil || !found {
		t.Fatalf("the lock is not in the table: %v %v", found, err)
	}
}

// TestReclaimSaysEachStepsToken (issue 38, 11): the repair of an
// ownerless orphan is three steps; its preview offered `aws dynamodb
// transact-write-items` for the claim alone, which sent by hand leaves
// the lock claimed, and its result showed step 3's token where the
// preview had shown step 1's, unexplained. The preview says that the
// steps cannot be replayed by hand as one; the result names both tokens.
func TestReclaimSaysEachStepsToken(t *testing.T) {
	b := fakeMany(3)
	b.Put(tablePlaceholder, lock("UNIQ#HANDLE#ghost", ""))
	d := newDriver(t, Options{Roles: roles(b)}, 120, 60)
	d.ready()
	d.press("3")
	d.selectRow("UNIQ#HANDLE#ghost")
	d.press("f")
	d.until("the fix's preview", func(m *Model) bool { return strings.Contains(d.screen(), "claim lock UNIQ#HANDLE#ghost") })
	preview := strings.Join(strings.Fields(d.screen()), " ")
	if strings.Contains(preview, "send it with") {
		t.Errorf("the preview offers to send step 1 alone by hand:\n%s", d.screen())
	}
	claim := regexp.MustCompile(`"ClientRequestToken": "([0-9a-f]+)"`).FindStringSubmatch(d.screen())
	if claim == nil || !strings.Contains(preview, "cannot be replayed by hand as one") {
		t.Fatalf("the preview does not say the steps go together, or shows no token:\n%s", d.screen())
	}
	d.press("enter")
	d.until("the fix's result", func(m *Model) bool { return strings.Contains(d.screen(), "COMMITTED") })
	result := strings.Join(strings.Fields(d.screen()), " ")
	if !strings.Contains(result, "the claim, step 1, was token "+claim[1]) {
		t.Errorf("the result does not name the claim's token %s:\n%s", claim[1], d.screen())
	}
}

func TestDeleteAsksForTheKey(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	pinAccount(d, "gina@x.io")
	d.press("d")
	waitScreen(d, "the typed confirmation", "type ACCT#g7 to send")
	d.press("enter")
	waitScreen(d, "the refusal", "type ACCT#g7 exactly to send")
	if _, found, _ := store.Account(context.Background(), "ACCT#g7"); !found {
		t.Fatal("deleted without the typed key")
	}
	d.typeText("ACCT#g7")
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	d.press("enter")
	d.until("the account gone from the screen", func(m *Model) bool { return !strings.Contains(d.screen(), "ACCT#g7") })
	if _, found, _ := store.Account(context.Background(), "ACCT#g7"); found {
		t.Fatal("ACCT#g7 is still in the table")
	}
	if _, found, _ := store.Lock(context.Background(), 0, "gina@x.io"); found {
		t.Fatal("its lock is still in the table")
	}
}

func TestRenameToATakenValueStaysOpen(t *testing.T) {
	t.Parallel()
	store, _ := planted(t)
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	renameADA(d, "email", "bob@x.io")
	waitScreen(d, "the preview", "put lock UNIQ#EMAIL#bob@x.io (owner ACCT#a1)")
	d.press("enter")
	waitScreen(d, "the cancellation", "CANCELLED")
	s := strings.Join(strings.Fields(d.screen()), " ")
	if !strings.Contains(s, "slot 1") || !strings.Contains(s, "email bob@x.io is taken by ACCT#b2") {
		t.Fatalf("the failure is not read slot by slot:\n%s", d.screen())
	}
	d.press("esc")
	waitScreen(d, "the form again, values kept", "bob@x.io")
	if !d.m.layers.write.Open() || d.m.layers.write.Stage() != dialog.StageForm {
		t.Fatalf("esc did not go back to the form:\n%s", d.screen())
	}
	if a, _, _ := store.Pages.Account(context.Background(), "ACCT#a1"); a.Item["email"].S != "ada@x.io" {
		t.Fatalf("the account changed: %v", a.Item["email"])
	}
}

// addN8 adds the account ACCT#n8 through the add dialog, with values for
// the form's fields after the key, and waits for the commit.
func addN8(d *driver, values ...string) {
	d.t.Helper()
	previewN8(d, values...)
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
}

// previewN8 fills the add form with ACCT#n8 and values, and waits for
// its preview.
func previewN8(d *driver, values ...string) {
	d.t.Helper()
	d.press("a")
	waitScreen(d, "the form", "add account")
	d.send(ctrlU())
	d.typeText("ACCT#n8")
	for _, v := range values {
		d.press("tab")
		d.typeText(v)
	}
	d.press("enter")
	waitScreen(d, "the preview", "put account ACCT#n8")
}

func TestAddAccount(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	addN8(d, "nina@x.io", "nina")
	d.press("enter")
	d.until("the new account pinned", func(m *Model) bool {
		s := strings.Join(strings.Fields(d.screen()), " ")
		return strings.Contains(s, "written") && strings.Contains(s, "└ UNIQ#HANDLE#nina owner ACCT#n8 ok")
	})
}

// TestAddAccountWritesItsID: on a schema whose accounts carry their id
// (--id-attr), the add dialog's signup writes it, the key without the
// account prefix, so that the library that built the key reads it back.
func TestAddAccountWritesItsID(t *testing.T) {
	t.Parallel()
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Table, sc.IDAttr = tablePlaceholder, "id"
	store := uitest.New(sc)
	store.Put(sc.Table, plantedItems()...)
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	addN8(d, "nina@x.io")
	a, _, err := store.Account(context.Background(), "ACCT#n8")
	if err != nil {
		t.Fatal(err)
	}
	if id := a.Item["id"]; id.Kind != model.KindS || id.S != "n8" {
		t.Errorf("the new account's id is %v, want n8: %v", id, a.Item)
	}
}

// TestDuplicateIsLeftToAPerson: f on a lock row whose problem a person
// decides shows the model's reason (model.Problem.LeftToAPerson, what the
// repair plan skips with), not words of the view's own, and sends nothing.
// The reason is the status line's: no dialog opens only to refuse (issue
// 27 #10; the dialog's title was asserted here before).
func TestDuplicateIsLeftToAPerson(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		account string
		kind    model.ProblemKind
	}{{"eve", model.DuplicateValue}, {"frank", model.InvalidValue}} {
		store := fakePlanted()
		d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
		d.ready()
		pinAccount(d, c.account)
		d.press("down")
		d.press("f")
		why := model.Problem{Kind: c.kind}.LeftToAPerson()
		d.until("the explanation", func(m *Model) bool {
			return strings.Contains(strings.Join(strings.Fields(d.screen()), " "), why)
		})
		if !strings.Contains(d.status(), why) || d.m.layers.write.Open() || store.Control.Calls("Execute") != 0 {
			t.Errorf("%s: its %s not refused on the status line, or something was sent:\n%s", c.account, c.kind, d.screen())
		}
	}
}

func TestReadOnlyOffersNoWrites(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Control.SetWritable(false)
	d := newDriver(t, Options{Roles: roles(store), ReadOnly: true, ReadOnlyWhy: "refusing to write: --read-only is set"}, 120, 40)
	d.ready()
	for _, k := range []string{"e", "d", "f", "a"} {
		d.press(k)
		if d.m.layers.write.Open() {
			t.Fatalf("%s opened a write dialog on a read-only store", k)
		}
		// Nothing happening in silence looks like a broken key: say why.
		if s := d.screen(); !strings.Contains(s, k+" ") || !strings.Contains(s, "read-only, refusing to write: --read-only is set") {
			t.Fatalf("%s on a read-only store does not say why nothing happens:\n%s", k, s)
		}
	}
	d.press("?")
	if s := d.screen(); strings.Contains(s, "rename") || !strings.Contains(s, "READ-ONLY") {
		t.Fatalf("help offers writes, or the header hides READ-ONLY:\n%s", s)
	}
}

// TestEscClosesADialogOpenedFromTheList opens the rename form straight from
// the list (nothing pinned, where esc has nothing else to do) and closes it.
func TestEscClosesADialogOpenedFromTheList(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.selectRow("ACCT#a1")
	d.press("e")
	waitScreen(d, "the form", "rename ACCT#a1")
	d.press("esc")
	if d.m.layers.write.Open() || d.m.views.shown != viewAccounts {
		t.Fatalf("esc did not close the dialog:\n%s", d.screen())
	}
}

// TestRepairOfALockNamingAnOwnerAsksForIt: deleting an orphan lock that
// still names an owner asks for the owner to be typed back (the plan says
// so, as it does for the CLI); one that names nobody is sent with enter.
func TestRepairOfALockNamingAnOwnerAsksForIt(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.press("g") // the orphan UNIQ#EMAIL#old@x.io, owner ACCT#a1 (g skips its heading)
	d.press("f")
	waitScreen(d, "the typed confirmation", "type ACCT#a1 to send")
	d.press("esc", "j", "f") // the ownerless UNIQ#HANDLE#ghost: claimed first
	waitScreen(d, "the preview", "claim lock UNIQ#HANDLE#ghost")
	if strings.Contains(d.screen(), "to send:") || !strings.Contains(d.footer(), "enter/y send") {
		t.Errorf("an ownerless orphan asks for something to be typed:\n%s", d.screen())
	}
}

// TestTooSmallTakesNoKeys: a rename preview, the terminal shrunk below
// 60x16 (the dialog is not shown), y pressed, the terminal grown back:
// the rename was sent. The too-small screen ignores every key but quit.
func TestTooSmallTakesNoKeys(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	renameADA(d, "username", "adele")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#adele")
	d.send(tea.WindowSizeMsg{Width: 50, Height: 12})
	d.press("y", "enter", "esc")
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.settle()
	if a, _, _ := store.Account(context.Background(), "ACCT#a1"); a.Item["username"].S != "ada" {
		t.Fatalf("a key pressed on the too-small screen sent the rename: %v", a.Item["username"])
	}
	if d.m.layers.write.Stage() != dialog.StagePreview || !strings.Contains(d.screen(), "put lock UNIQ#HANDLE#adele") {
		t.Fatalf("the preview is not as it was:\n%s", d.screen())
	}
	d.send(tea.WindowSizeMsg{Width: 50, Height: 12})
	d.press("q")
	if !d.quit {
		t.Error("q does not quit the too-small screen over a dialog")
	}
}

// TestCopyAndSaveTheRequest: c copies the previewed request (OSC 52, on
// that key only), w saves it and says where; the preview shows it one
// member a line, so that it wraps between tokens.
func TestCopyAndSaveTheRequest(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	dir := t.TempDir()
	d := newDriver(t, Options{Roles: roles(store), SaveDir: dir}, 80, 24)
	d.ready()
	pinAccount(d, "bob")
	d.press("down", "down", "f")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#bob (owner ACCT#b2)")
	if d.clipboard != "" {
		t.Fatalf("the clipboard was set before c: %q", d.clipboard)
	}
	found := false
	for range 5 {
		for _, l := range d.lines() {
			found = found || strings.TrimSpace(l) == `"ReturnValuesOnConditionCheckFailure": "ALL_OLD",`
		}
		d.press("pgdown")
	}
	if !found {
		t.Errorf("the request is not shown one member a line:\n%s", d.screen())
	}
	d.press("c")
	if !strings.HasPrefix(d.clipboard, "{") || !strings.Contains(d.clipboard, `"ClientRequestToken":"`) || !strings.Contains(d.screen(), "copied the request") {
		t.Fatalf("c did not copy the request: %q\n%s", d.clipboard, d.screen())
	}
	d.press("w")
	files, _ := filepath.Glob(filepath.Join(dir, "locktable-tx-*.json"))
	if len(files) != 1 {
		t.Fatalf("w saved %v", files)
	}
	if !strings.Contains(strings.ReplaceAll(d.screen(), "\n", ""), files[0]) {
		t.Errorf("the screen does not show the path %s:\n%s", files[0], d.screen())
	}
	if b, _ := os.ReadFile(files[0]); strings.TrimSpace(string(b)) != d.clipboard {
		t.Errorf("the file is not the request copied:\n%s", b)
	}
	if !d.m.layers.write.Open() || d.m.layers.write.Stage() != dialog.StagePreview {
		t.Fatalf("c or w left the preview:\n%s", d.screen())
	}
}

// TestRaceCancelledRacerWritten: a backend that applies a cancelled
// racer's account put all the same (uitest.LeakCancelled): the board
// marks that racer as written although cancelled, the verdict says the
// guards did not hold, and the check run on closing finds the value held
// twice.
func TestRaceCancelledRacerWritten(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Control.LeakCancelled(1)
	d := startRace(t, store)
	waitScreen(d, "the verdict", "1 of 10 racers committed: A CANCELLED RACER WAS WRITTEN: the guards did NOT hold")
	page, err := store.AccountsPage(context.Background(), backend.Cursor{}, 1000, true)
	if err != nil {
		t.Fatal(err)
	}
	var holders []string
	for _, a := range page.Accounts {
		if a.Item["email"].S == "racer@x.io" {
			holders = append(holders, a.ID)
		}
	}
	if len(holders) != 2 {
		t.Fatalf("accounts holding racer@x.io: %v; want the winner and the cancelled racer written", holders)
	}
	marked := 0
	for _, l := range d.lines() {
		if f := fields(l); strings.Contains(f, "cancelled") && strings.Contains(f, "WRITTEN although cancelled: account") {
			marked++
			if !strings.Contains(f, holders[0]) && !strings.Contains(f, holders[1]) {
				t.Errorf("the racer marked written is not one of %v: %s", holders, f)
			}
		}
	}
	if marked != 1 {
		t.Fatalf("%d racers marked written although cancelled, want 1:\n%s", marked, d.screen())
	}
	d.press("enter")
	d.until("the check run again", func(m *Model) bool {
		return !m.check.Bar().Running && m.check.Report() != nil && slices.ContainsFunc(m.check.Report().Problems,
			func(p model.Problem) bool { return p.Value == "racer@x.io" })
	})
}

// TestRaceOneCommits: R races new accounts for one value; every racer's
// row resolves, exactly one commits and the others are cancelled by the
// lock's guard, slot by slot; closing pins the winner with its lock and
// runs the check again, which stays clean of the value.
func TestRaceOneCommits(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := raceRacer(t, store)
	s := d.screen()
	if n := strings.Count(s, "cancelled"); n != 9 {
		t.Fatalf("want 9 cancelled racers, got %d:\n%s", n, s)
	}
	if !strings.Contains(fields(s), "slot 1: email racer@x.io is taken by ACCT#") {
		t.Fatalf("a cancelled racer does not say which slot failed:\n%s", s)
	}
	checks, accounts := store.Control.Calls("Check"), d.m.check.Report().Accounts
	d.press("enter")
	d.until("the winner pinned, the check run again", func(m *Model) bool {
		return strings.Contains(fields(d.screen()), "└ UNIQ#EMAIL#racer@x.io owner ACCT#") &&
			store.Control.Calls("Check") > checks && !m.check.Bar().Running && m.check.Report() != nil
	})
	if got := d.m.check.Report().Accounts; got != accounts+1 {
		t.Errorf("the check after the race counts %d accounts, want %d (the winner's added)", got, accounts+1)
	}
	for _, p := range d.m.check.Report().Problems {
		if p.Value == "racer@x.io" {
			t.Fatalf("the race left a problem: %+v", p)
		}
	}
}

// TestRenameIsGuardedOnWhatWasShown: ACCT#b2's email changes in the table
// after the list showed it; renaming its username from the screen is
// cancelled, naming the email and its value now, and the table is as the
// other writer left it. The preview says every guard the request carries.
func TestRenameIsGuardedOnWhatWasShown(t *testing.T) {
	t.Parallel()
	store, client := planted(t)
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.selectRow("ACCT#b2")
	changed := acct("ACCT#b2", "bob.ext@x.io", "bob")
	dynamotest.Put(t, client, store.Schema.Table, changed)
	d.press("e")
	waitScreen(d, "the form", "rename ACCT#b2")
	d.press("down")
	d.typeText("by")
	d.press("enter")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#bobby (owner ACCT#b2)")
	for _, want := range []string{`only if its email is "bob@x.io"`, `only if its username is "bob"`, "only if no item with this key exists"} {
		if !strings.Contains(d.screen(), want) {
			t.Errorf("the preview lacks %q:\n%s", want, d.screen())
		}
	}
	d.press("enter")
	waitScreen(d, "the result", "CANCELLED")
	if s := strings.Join(strings.Fields(d.screen()), " "); !strings.Contains(s, "account ACCT#b2 changed since it was loaded: email is now bob.ext@x.io") {
		t.Errorf("the cancellation does not name the change:\n%s", d.screen())
	}
	a, _, err := store.Pages.Account(context.Background(), "ACCT#b2")
	if err != nil || a.Item["username"].S != "bob" || a.Item["email"].S != "bob.ext@x.io" {
		t.Fatalf("the account is %v (%v), want the other writer's", a.Item, err)
	}
}

// TestPreviewSaysTheHolderLookup (issue 27): `locktable signup` says how
// its holder lookup looked, how much it read and what it found; the TUI's
// preview of the same write said nothing of it. It says the same line.
func TestPreviewSaysTheHolderLookup(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 160, 40)
	d.ready()
	previewN8(d, "nina@x.io", "nina")
	if s := strings.Join(strings.Fields(d.screen()), " "); !strings.Contains(s, "holder lookup for email=nina@x.io, username=nina:") {
		t.Fatalf("the preview does not say the holder lookup:\n%s", d.screen())
	}
}

// TestFormErrorFollowsTheValue (issue 38, 8): a username stored with an
// ESC is refused once edited (Z typed after it), and no longer once
// backspace gives the stored value back: the email can then be changed
// and previewed, the username sent back as stored.
func TestFormErrorFollowsTheValue(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fake(acct("ACCT#h8", "hex@x.io", "h\x1bx"),
		lock("UNIQ#EMAIL#hex@x.io", "ACCT#h8"), lock("UNIQ#HANDLE#h\x1bx", "ACCT#h8")))}, 100, 30)
	d.ready()
	pinAccount(d, "hex@")
	d.press("e", "tab")
	waitScreen(d, "the form", "rename ACCT#h8")
	d.send(tea.KeyPressMsg{Code: tea.KeyEnd})
	d.press("Z")
	if !strings.Contains(d.screen(), "control character U+001B") {
		t.Fatalf("the username edited to h\\x1bxZ is not refused:\n%s", d.screen())
	}
	d.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if strings.Contains(d.screen(), "control character") {
		t.Errorf("the stored username, given back by backspace, is still refused:\n%s", d.screen())
	}
	d.press("shift+tab")
	d.send(ctrlU())
	d.typeText("hex2@x.io")
	d.press("enter")
	waitScreen(d, "the preview of the email's rename", "put lock UNIQ#EMAIL#hex2@x.io")
}
