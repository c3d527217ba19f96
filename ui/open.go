package ui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/startuptrace"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
)

// Opened is what Open found.
type Opened struct {
	// Capabilities waits for what the probe found (nil when none runs).
	// Hand it to New in Options.Capabilities.
	Capabilities Capabilities
	// First is the first page of accounts, on its way, their locks not
	// read (nil when it is read through an accounts index: the UI asks
	// for it itself). Hand it to New in Options.First.
	First accounts.FirstPage
	// FirstLocks waits for the first page's accounts judged, their locks
	// read (nil with First). Hand it to New in Options.FirstLocks.
	FirstLocks accounts.FirstLocks
	// Shown says that the first rows are on screen: the probes wait for
	// it. Hand it to New in Options.Shown; a second call does nothing.
	Shown func()
}

// Capabilities waits for what the probe found (Store.ProbeLater).
type Capabilities func() (backend.Capabilities, error)

// Store is what Open asks of the store the UI will read: that its tables
// fit the schema, the accounts index to page through, and, after the
// first page, what the backend can do. *dynamo.Store is one.
type Store interface {
	Verify(ctx context.Context) error
	UseAccountsIndex(ctx context.Context, name string) error
	// ProbeReadsLater asks what reads the backend honours once after
	// returns, without holding up the first rows; reads that need the
	// answer wait for it.
	ProbeReadsLater(ctx context.Context, after func())
	// ProbeLater asks what writes the backend can do, and what reads it
	// honours, once after returns; writes wait for the answer.
	ProbeLater(ctx context.Context, after func()) func() (backend.Capabilities, error)
}

// FirstPager reads the first page of accounts ahead, for Open
// (*dynamo.Pages is one): the accounts first, their locks then, so that
// the first rows wait for one read.
type FirstPager interface {
	// FirstAccounts reads the first want accounts (at least), each lock
	// of a value held model.LockUnread.
	FirstAccounts(ctx context.Context, want int) (backend.AccountPage, error)
	// JudgeAccounts reads the locks of accounts and judges them.
	JudgeAccounts(ctx context.Context, accounts []model.Item) ([]model.AccountView, error)
}

// OpenOptions say what Open reads ahead.
type OpenOptions struct {
	// Constraints is how many unique attributes the schema has.
	Constraints int
	// AccountsIndex, when set (--accounts-index), is described too, and
	// pages are read through it, so the first page waits for the UI.
	AccountsIndex string
	// Probe asks what the backend can write, once the first rows are on
	// screen (Opened.Capabilities).
	Probe bool
	// Height is the terminal's height in rows (0 when not known): the
	// first page holds the accounts that fill its list, no more.
	Height int
}

// Open readies a store for the UI. It describes the tables (refusing one
// whose key does not fit the schema) while it reads the first page of
// accounts through pages (the store's Pages), so that the first rows
// wait for the slower of the two rather than for their sum. The page's
// accounts come first (Opened.First), each lock of theirs not read yet
// (model.LockUnread), and their locks are read at once after them
// (Opened.FirstLocks): the first rows wait for one Scan, not for it and
// a BatchGetItem. The tables' TTL settings, which judge the first page's
// locks, are asked beside its reads (JudgeAccounts waits for them).
// What reads the backend honours, and what it can do when o.Probe is
// set, are asked only once the first rows are on screen (Opened.Shown),
// so that they share neither the backend nor the CPU with them; the UI
// takes the answer when it comes (Options.Capabilities).
// When Open fails, the first page is no longer being read (the read
// probe, let go, may still ask), and no write probe runs.
func Open(ctx context.Context, s Store, pages FirstPager, o OpenOptions) (Opened, error) {
	var opened Opened
	var stop context.CancelFunc = func() {}
	if o.AccountsIndex == "" {
		want := accounts.Want(0, o.Constraints) // the terminal's size not known: a page
		if o.Height > 0 {
			want = accounts.FirstWant(listRows(o.Height), o.Constraints)
		}
		opened.First, opened.FirstLocks, stop = prefetch(ctx, pages, want)
	}
	shown := make(chan struct{})
	opened.Shown = sync.OnceFunc(func() { close(shown) })
	onScreen := func() {
		select {
		case <-shown:
		case <-ctx.Done():
		}
	}
	s.ProbeReadsLater(ctx, onScreen) // Verify would ask it otherwise, before the first page
	err := s.Verify(ctx)
	startuptrace.Mark("describe")
	if err == nil && o.AccountsIndex != "" {
		err = s.UseAccountsIndex(ctx, o.AccountsIndex)
	}
	if err != nil {
		if opened.First != nil {
			// The page was read under a schema the table does not fit (or
			// the caller will pick another table): drop it, and wait
			// until it is no longer reading the store.
			stop()
			_, _ = opened.FirstLocks()
		}
		opened.Shown() // the read probe holds the store's reads until it has asked
		return Opened{}, err
	}
	if o.Probe {
		opened.Capabilities = s.ProbeLater(ctx, onScreen)
	}
	return opened, nil
}

// drawn is how long after an update its frame is surely on screen: two
// frames at Bubble Tea's 60 per second.
const drawn = 2 * time.Second / 60

// onScreen waits until what the last update drew is on screen.
func onScreen() tea.Cmd {
	return tea.Tick(drawn, func(time.Time) tea.Msg { return nil })
}

// tellShown tells Open that the first rows are on screen.
func tellShown(shown func()) tea.Cmd {
	return func() tea.Msg {
		shown()
		return nil
	}
}

// capabilitiesMsg is what the probe found (Options.Capabilities).
type capabilitiesMsg struct {
	c   backend.Capabilities
	err error
}

// awaitCapabilities waits for the probe's answer.
func awaitCapabilities(wait Capabilities) tea.Cmd {
	return func() tea.Msg {
		c, err := wait()
		return capabilitiesMsg{c: c, err: err}
	}
}

// takeCapabilities keeps what the backend lacks for help, and turns writes off
// when it cannot write or could not be asked (the store refuses them
// then anyway: its writes wait for the same answer).
func (m *Model) takeCapabilities(msg capabilitiesMsg) {
	if msg.err != nil {
		m.readOnly("the backend could not be probed: " + errText(msg.err))
		m.status = "read-only, " + m.setup.opts.ReadOnlyWhy
		return
	}
	m.setup.opts.Missing = msg.c.Missing()
	if !msg.c.Transactions {
		m.readOnly("the backend does not support transactions")
	}
}

// readOnly turns writes off for why, shown when a write key is pressed.
func (m *Model) readOnly(why string) {
	m.disableWrites()
	m.setup.opts.ReadOnly, m.setup.opts.ReadOnlyWhy = true, why
}

// prefetch starts reading the first page of accounts, the one the accounts
// view asks for first, then their locks, and returns a wait for each and
// a stop. The locks are asked as soon as the accounts are read, while
// the UI draws them.
func prefetch(ctx context.Context, s FirstPager, want int) (accounts.FirstPage, accounts.FirstLocks, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	read, judged := make(chan struct{}), make(chan struct{})
	var page backend.AccountPage
	var views []model.AccountView
	var err, judgeErr error
	go func() {
		defer close(judged)
		defer cancel()
		page, err = s.FirstAccounts(ctx, want)
		close(read)
		if err != nil {
			judgeErr = err
			return
		}
		items := make([]model.Item, len(page.Accounts))
		for i, a := range page.Accounts {
			items[i] = a.Item
		}
		views, judgeErr = s.JudgeAccounts(ctx, items)
	}()
	first := func() (backend.AccountPage, error) {
		<-read
		return page, err
	}
	locks := func() ([]model.AccountView, error) {
		<-judged
		return views, judgeErr
	}
	return first, locks, cancel
}
