package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
)

// openStore is a Store for Open whose first page the test holds, and
// which says when each probe would start asking.
type openStore struct {
	verify error
	page   chan struct{} // closed: the first page is read
	// reads and writes are closed when the read probe and the write
	// probe start asking; writes stays nil when none was started.
	reads, writes chan struct{}
	want          int // what the first page asked for
}

func newOpenStore() *openStore {
	return &openStore{page: make(chan struct{}), reads: make(chan struct{})}
}

func (s *openStore) Verify(context.Context) error                   { return s.verify }
func (s *openStore) UseAccountsIndex(context.Context, string) error { return nil }

func (s *openStore) FirstAccounts(ctx context.Context, want int) (backend.AccountPage, error) {
	s.want = want
	select {
	case <-s.page:
		return backend.AccountPage{Accounts: []model.AccountView{{ID: "ACCT#a"}}, Next: backend.End()}, nil
	case <-ctx.Done():
		return backend.AccountPage{}, ctx.Err()
	}
}

func (s *openStore) JudgeAccounts(_ context.Context, accounts []model.Item) ([]model.AccountView, error) {
	return make([]model.AccountView, len(accounts)), nil
}

func (s *openStore) ProbeReadsLater(_ context.Context, after func()) {
	go func() {
		after()
		close(s.reads)
	}()
}

func (s *openStore) ProbeLater(_ context.Context, after func()) func() (backend.Capabilities, error) {
	s.writes = make(chan struct{})
	go func() {
		after()
		close(s.writes)
	}()
	return func() (backend.Capabilities, error) {
		<-s.writes
		return backend.Every(), nil
	}
}

// asked reports whether ch is closed, or closes within wait.
func asked(ch chan struct{}, wait time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	select {
	case <-ch:
		return true
	case <-time.After(wait):
		return false
	}
}

// TestOpenProbesOnceTheFirstRowsAreShown: the probes waited in Open (the
// write probe) or ran beside the first page (the read probe, whose
// segment scans sort a whole segment on dynoxide), and the first rows
// waited for them. Open returns with the page still on its way, and
// neither probe asks anything until the UI says the rows are on screen.
func TestOpenProbesOnceTheFirstRowsAreShown(t *testing.T) {
	t.Parallel()
	s := newOpenStore()
	o, err := Open(context.Background(), s, s, OpenOptions{Constraints: 2, Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	close(s.page)
	if page, err := o.First(); err != nil || len(page.Accounts) != 1 {
		t.Fatalf("first page %+v, %v", page, err)
	}
	if asked(s.reads, 50*time.Millisecond) || asked(s.writes, 0) {
		t.Fatal("a probe asked before the first rows were shown")
	}
	o.Shown()
	o.Shown() // the UI may say it again: nothing happens
	if !asked(s.reads, waitFor) || !asked(s.writes, waitFor) {
		t.Fatal("the probes did not ask once the first rows were shown")
	}
	if c, err := o.Capabilities(); err != nil || !c.Transactions {
		t.Fatalf("capabilities %+v, %v", c, err)
	}
}

// TestFirstPageFillsTheScreen: the first rows wait for the first page
// (and its locks for their BatchGetItem), so it asks for the accounts that fill the
// terminal (an account's row and one per lock: 7 accounts in the 20 list
// rows of 80x24), not for the 50 of a page; without a size, a page's.
func TestFirstPageFillsTheScreen(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ height, constraints, want int }{
		{24, 2, 7}, {40, 2, 12}, {24, 1, 10}, {0, 2, 50},
	} {
		s := newOpenStore()
		o, err := Open(context.Background(), s, s, OpenOptions{Constraints: c.constraints, Height: c.height})
		if err != nil {
			t.Fatal(err)
		}
		close(s.page)
		if _, err := o.First(); err != nil {
			t.Fatal(err)
		}
		if s.want != c.want {
			t.Errorf("height %d, %d constraints: the first page asked for %d accounts, want %d", c.height, c.constraints, s.want, c.want)
		}
		o.Shown()
	}
}

// TestOpenFailingLetsTheReadProbeGo: when the table does not fit (or is
// not there, and the CLI offers a picker and opens another), no write
// probe starts, and the read probe, which holds the store's reads until
// it has asked, is let go rather than left waiting for rows never shown.
func TestOpenFailingLetsTheReadProbeGo(t *testing.T) {
	t.Parallel()
	s := newOpenStore()
	s.verify = errors.New("table not found")
	if _, err := Open(context.Background(), s, s, OpenOptions{Constraints: 2, Probe: true}); err == nil {
		t.Fatal("Open did not fail")
	}
	if !asked(s.reads, waitFor) {
		t.Fatal("the read probe still waits")
	}
	if s.writes != nil {
		t.Fatal("a write probe was started for a table that does not fit")
	}
}

// TestProbeFindingNoTransactionsTurnsWritesOff: the first rows no longer
// wait for the probe, so the UI starts writable and learns later that
// the backend has no transactions: from then on it is read only, as if
// it had started so: the header says READ-ONLY, a write key why, and
// help what the backend lacks.
func TestProbeFindingNoTransactionsTurnsWritesOff(t *testing.T) {
	t.Parallel()
	answer := make(chan struct{})
	probe := func() (backend.Capabilities, error) {
		<-answer
		return backend.Capabilities{Probed: true}, nil
	}
	d := newDriver(t, Options{Roles: roles(fakePlanted()), Capabilities: probe}, 120, 40)
	d.until("the first rows", func(m *Model) bool { return m.views.accounts.Pager().Len() > 0 })
	if s := d.screen(); !strings.Contains(s, "a add") || strings.Contains(s, "READ-ONLY") {
		t.Fatalf("before the probe's answer the UI is not writable:\n%s", s)
	}
	close(answer)
	d.ready()
	if s := d.screen(); !strings.Contains(d.lines()[0], "READ-ONLY") || strings.Contains(s, "no transactions") {
		t.Fatalf("the header does not say READ-ONLY, or the first screen says what the backend lacks:\n%s", s)
	}
	for _, k := range []string{"e", "d", "f", "a"} {
		d.press(k)
		if d.m.layers.write.Open() {
			t.Fatalf("%s opened a write dialog on a backend without transactions", k)
		}
		if s := d.screen(); !strings.Contains(s, "read-only, the backend does not support transactions") {
			t.Fatalf("%s does not say why nothing happens:\n%s", k, s)
		}
	}
	d.press("?")
	if s := d.screen(); strings.Contains(s, "rename") {
		t.Fatalf("help offers writes:\n%s", s)
	}
	if s := fields(d.screen()); !strings.Contains(s, "this backend lacks") || !strings.Contains(s, "- no transactions (TransactWriteItems): writes are disabled") {
		t.Errorf("help does not say what the backend lacks:\n%s", d.screen())
	}
}

// TestProbeFailingTurnsWritesOff: a probe that fails once the rows are
// shown (where it failed the start before) leaves the UI read only, and
// says why.
func TestProbeFailingTurnsWritesOff(t *testing.T) {
	t.Parallel()
	probe := func() (backend.Capabilities, error) { return backend.Capabilities{}, errors.New("AccessDenied") }
	d := newDriver(t, Options{Roles: roles(fakePlanted()), Capabilities: probe}, 120, 40)
	d.ready()
	if s := d.screen(); !strings.Contains(s, "READ-ONLY") || !strings.Contains(s, "the backend could not be probed: AccessDenied") {
		t.Fatalf("a failed probe is not said, or leaves writes on:\n%s", s)
	}
	d.press("a")
	if d.m.layers.write.Open() {
		t.Fatal("a opened a write dialog after the probe failed")
	}
}

// TestShownIsSaidWhenTheFirstPageFails: the probes wait for the first
// rows, and writes wait for the probe; a first page that fails still
// lets them go.
func TestShownIsSaidWhenTheFirstPageFails(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Control.Fail("AccountsPage", errors.New("throttled"))
	shown := make(chan struct{})
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true, Shown: func() { close(shown) }}, 120, 40)
	d.until("the UI to say the first rows are shown", func(*Model) bool { return asked(shown, 0) })
	if d.m.views.accounts.Err() == nil {
		t.Fatal("the first page did not fail")
	}
}

// firstInTwo is a first page as Open hands it over: the fake's accounts
// without their locks at once, their locks once release is closed (or
// failing with fail).
func firstInTwo(t *testing.T, store *uitest.Backend, release chan struct{}, fail error) (accounts.FirstPage, accounts.FirstLocks) {
	t.Helper()
	ctx := context.Background()
	page, err := uitest.NewFirst(store).FirstAccounts(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	first := func() (backend.AccountPage, error) { return page, nil }
	locks := func() ([]model.AccountView, error) {
		<-release
		if fail != nil {
			return nil, fail
		}
		items := make([]model.Item, len(page.Accounts))
		for i, a := range page.Accounts {
			items[i] = a.Item
		}
		return uitest.NewFirst(store).JudgeAccounts(ctx, items)
	}
	return first, locks
}

// verdicts are the words of a lock row that judge it.
var verdicts = []string{" ok", "missing", "foreign", "duplicate", "orphan", "expired", "reserved", "not found", "no owner"}

// TestFirstRowsComeBeforeTheirLocks: the first rows wait for the scan
// alone, their locks' BatchGetItem filling them in when it comes. Until
// then a lock row says it is not read, and no row claims a verdict it
// does not have (no "missing" before the locks were read); then the rows
// show what the locks say.
func TestFirstRowsComeBeforeTheirLocks(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	release := make(chan struct{})
	first, locks := firstInTwo(t, store, release, nil)
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true, First: first, FirstLocks: locks}, 120, 40)
	d.until("the first rows", func(m *Model) bool { return m.views.accounts.Pager().Len() > 0 })
	s := d.screen()
	if !strings.Contains(s, "ACCT#a1") || !strings.Contains(s, "lock not read yet") {
		t.Fatalf("the first rows are not drawn before their locks, or do not say so:\n%s", s)
	}
	for _, v := range verdicts {
		if strings.Contains(s, v) {
			t.Errorf("a row says %q before its locks were read:\n%s", v, s)
		}
	}
	if !strings.Contains(s, "invalid") {
		t.Errorf("ACCT#f6's email, a number, is not invalid (the account alone says so):\n%s", s)
	}
	close(release)
	d.until("the locks", func(m *Model) bool { return !strings.Contains(d.screen(), "lock not read yet") })
	s = d.screen()
	for _, v := range []string{"missing", "foreign", " ok"} {
		if !strings.Contains(s, v) {
			t.Errorf("the rows do not say %q once the locks are read:\n%s", v, s)
		}
	}
}

// TestFirstRowsKeepNoVerdictWhenTheirLocksFail: locks that could not be
// read leave the rows without a verdict, and the failure is said.
func TestFirstRowsKeepNoVerdictWhenTheirLocksFail(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	release := make(chan struct{})
	close(release)
	first, locks := firstInTwo(t, store, release, errors.New("throttled"))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true, First: first, FirstLocks: locks}, 120, 40)
	d.until("the failure", func(m *Model) bool { return m.views.accounts.Err() != nil })
	s := d.screen()
	if !strings.Contains(s, "throttled") || !strings.Contains(s, "lock not read yet") {
		t.Fatalf("the failure is not said, or the rows lost their 'not read':\n%s", s)
	}
	if strings.Contains(s, "missing") {
		t.Fatalf("a row claims a missing lock that was never read:\n%s", s)
	}
}
