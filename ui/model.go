// Package ui is locktable's terminal UI: the root Bubble Tea model, which
// routes messages to one widget package per view.
package ui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/statusbar"
	"github.com/locktable/locktable/ui/styles"
)

// Minimum terminal size: below it the UI says so instead of drawing.
const (
	MinWidth  = 60
	MinHeight = 16
)

// view is one of the screens.
type view int

const (
	viewAccounts view = iota
	viewLocks
	viewProblems
	viewDetail
	viewHelp
	viewDialog
)

var viewTitles = []string{"Accounts", "Locks", "Problems"}

// Options configure the UI.
type Options struct {
	Store Backend
	// Schema and Endpoint describe the tables Store reads, for the rows and
	// the header; ApproxItems is their approximate item count, for the
	// check's progress until it reports its own.
	Schema      model.Schema
	Endpoint    dynamo.Endpoint
	ApproxItems int64
	ReadOnly    bool // writes are disabled: shown in the header
	// NoCheck skips the background check (tests of paging alone).
	NoCheck bool
}

// Model is the root model.
type Model struct {
	ctx    context.Context
	store  Backend
	schema *model.Schema
	opts   Options
	km     keymap.KeyMap
	st     *styles.Styles
	render *rows.Renderer
	events chan tea.Msg

	width, height int
	view, back    view

	accounts     *accountsData
	accountsList browser.Model
	acctNext     dynamo.Cursor
	acctLoading  bool
	followEnd    bool // G: keep moving to the end as pages arrive
	consistent   bool // the next pages are a reload: read them consistently

	locks       *locksData
	locksList   browser.Model
	locksNext   dynamo.Cursor
	locksLoaded bool
	locksLoad   bool

	problems     *problemsData
	problemsList browser.Model

	detail detail.Model
	// dialog is the open write dialog (nil when none): dialogOp is its
	// operation and dialogID the account it is about; lastWrite lists the
	// accounts the last committed write touched.
	dialog    *dialog.Model
	prepared  *dynamo.Tx // the transaction the dialog previews, if any
	dialogSeq int        // numbers dialogs, so a late answer finds its own
	dialogOp  string
	dialogID  string
	lastWrite []string
	// sending holds the transaction in flight, if any: quitting waits for
	// its outcome (quitting is set), unless asked twice. farewell is what
	// the command prints once the UI has left the terminal.
	sending   *dynamo.Tx
	quitting  bool
	farewell  string
	help      help.Model
	search    textinput.Model
	searching bool
	searchID  int
	// searchBusy is set while a search or jump is in flight.
	searchBusy bool
	spinner    spinner.Model

	gen      int // bumped on reload: answers to older requests are dropped
	locksGen int // the same for the locks view
	// detailSeq drops a detail read that a later key made stale.
	detailSeq int
	// checkCancel stops the running check when a new one starts.
	checkCancel context.CancelFunc
	checkRun    int
	check       statusbar.Check
	status      string
	err         error
	// retry redoes what failed, on the current model (r).
	retry func(*Model) tea.Cmd
}

// New returns the root model for a store. ctx bounds every request.
func New(ctx context.Context, o Options) Model {
	km := keymap.Default()
	st := styles.New(true)
	sc := o.Schema
	r := &rows.Renderer{Schema: &sc, Styles: &st}
	m := Model{
		ctx: ctx, store: o.Store, schema: &sc, opts: o, km: km, st: &st, render: r,
		events:   make(chan tea.Msg, 16),
		accounts: newAccountsData(r),
		locks:    &locksData{r: r},
		problems: &problemsData{r: r},
		detail:   detail.New(km),
		help:     help.New(),
		spinner:  spinner.New(spinner.WithSpinner(spinner.Dot)),
	}
	m.acctLoading = true // Init asks for the first page (it cannot set this: value receiver)
	m.accountsList = browser.New(km, m.accounts)
	m.locksList = browser.New(km, m.locks)
	m.problemsList = browser.New(km, m.problems)
	m.search = textinput.New()
	m.search.Prompt = "/"
	m.search.Placeholder = "email, handle or account id"
	m.search.CharLimit = 2048
	return m
}

// Init asks for the background colour and the first page.
func (m Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, listen(m.events), m.spinner.Tick,
		loadAccounts(m.ctx, m.store, m.gen, dynamo.Cursor{}, m.pageWant(), false))
}

// pageWant is how many accounts a page asks for: a few screens' worth.
func (m Model) pageWant() int { return max(3*m.height/(1+len(m.schema.Constraints)), 50) }

// listHeight is the rows left for a list under the two header lines and
// above the status and help lines.
func (m Model) listHeight() int { return max(m.height-4, 1) }

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	lh := m.listHeight()
	m.accountsList.SetSize(w, lh)
	m.locksList.SetSize(w, lh)
	m.problemsList.SetSize(w, lh)
	m.detail.SetSize(w, lh-1)
	if m.dialog != nil {
		m.dialog.SetSize(w, lh)
	}
	m.help.SetWidth(w)
	m.search.SetWidth(max(w-4, 10))
}

// Update routes a message, then keeps help truthful for the new state:
// answers that arrive later (a search, an orphan's detail, a closed
// dialog) change what esc does as much as keys do.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	nm := next.(Model)
	nm.enableKeys()
	return nm, cmd
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		cmd := m.prefetch()
		return m, cmd
	case tea.BackgroundColorMsg:
		*m.st = styles.New(msg.IsDark())
		return m, nil
	case spinner.TickMsg:
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	case accountsPageMsg:
		return m.onAccountsPage(msg)
	case locksPageMsg:
		return m.onLocksPage(msg)
	case checkProgressMsg:
		if msg.run == m.checkRun {
			m.check.Progress = msg.p
			if msg.p.Confirmed != nil {
				m.showOrphans(msg.p.Confirmed)
			}
		}
		return m, listen(m.events)
	case checkDoneMsg:
		return m.onCheckDone(msg)
	case searchProgressMsg:
		if msg.id == m.searchID {
			m.status = fmt.Sprintf("%s: %s items read", msg.what, rows.Count(msg.scanned))
		}
		return m, listen(m.events)
	case searchDoneMsg:
		return m.onSearchDone(msg)
	case detailMsg:
		if msg.seq != m.detailSeq || m.view == viewDialog {
			return m, nil
		}
		if msg.err != nil {
			m.err, m.retry = msg.err, nil
			return m, nil
		}
		m.openDetail(msg.title, msg.lines)
		return m, nil
	case dialog.SubmitMsg, dialog.SendMsg, dialog.CloseMsg, planMsg, writeDoneMsg:
		if m.dialog == nil {
			return m, nil
		}
		return m.onDialogMsg(msg)
	case refreshedMsg:
		return m.onRefreshed(msg)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.MouseWheelMsg:
		return m.routeToList(msg)
	}
	return m, nil
}

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.content())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "locktable: " + model.Printable(m.schema.Table)
	return v
}

func (m Model) content() string {
	if m.width < MinWidth || m.height < MinHeight {
		return fmt.Sprintf("terminal too small: %dx%d, locktable needs at least %dx%d\n(q quits)",
			m.width, m.height, MinWidth, MinHeight)
	}
	active := int(m.view)
	if m.view > viewProblems {
		active = int(m.back)
	}
	h := statusbar.Header{
		Table: m.schema.Table, Where: where(m.opts.Endpoint), ReadOnly: m.opts.ReadOnly,
		Views: viewTitles, Active: active, Check: m.check,
	}
	var body string
	switch m.view {
	case viewAccounts:
		body = m.accountsList.View()
	case viewLocks:
		body = m.locksList.View()
	case viewProblems:
		if m.check.Report == nil {
			body = padLines(m.st.Dim.Render("  the check is still running: problems appear here when it is done"), m.listHeight())
		} else {
			body = m.problemsList.View()
		}
	case viewDetail:
		body = padLines(m.st.Title.Render(m.detail.Title)+"\n"+m.detail.View(), m.listHeight())
	case viewHelp:
		under := m // help lists the keys of the view it was opened over
		under.view = m.back
		under.enableKeys()
		body = padLines(m.help.FullHelpView(under.km.FullHelp()), m.listHeight())
	case viewDialog:
		body = padLines(m.dialog.View(), m.listHeight())
	}
	bottom := statusbar.Status(m.st, m.width, m.spinner.View(), m.loading(), m.statusText(), errText(m.err))
	if m.searching {
		bottom = m.search.View()
	}
	return h.Render(m.st, m.width) + "\n" + body + "\n" + bottom + "\n" + m.help.ShortHelpView(m.km.ShortHelp())
}

// where names the endpoint for the header: its URL, or the AWS region and
// the profile in use.
func where(ep dynamo.Endpoint) string {
	if ep.URL == "" && ep.Profile != "" {
		return ep.String() + " (profile " + ep.Profile + ")"
	}
	return ep.String()
}

// errText is an error as the screen may show it: credentials redacted
// (the SDK's text can quote them), "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return dynamo.Redact(err.Error())
}

func (m Model) loading() bool { return m.acctLoading || m.locksLoad || m.searchBusy }

// statusText says what is loaded, or what is being done.
func (m Model) statusText() string {
	if m.status != "" {
		return m.status
	}
	switch m.view {
	case viewLocks:
		more := ""
		if !m.locksNext.Done() {
			more = ", more below"
		}
		return fmt.Sprintf("%s locks loaded%s", rows.Count(int64(len(m.locks.locks))), more)
	case viewDetail:
		return "esc: back"
	}
	more := ""
	if !m.acctNext.Done() {
		more = ", more below"
	}
	if m.acctLoading {
		return "loading accounts…"
	}
	return fmt.Sprintf("%s accounts loaded%s", rows.Count(int64(len(m.accounts.main))), more)
}

// padLines fits s to exactly n lines: cut below, padded with empty lines,
// so that no view can push the status and help lines off the screen.
func padLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// enabled keeps help truthful: bindings that do nothing here are disabled.
func (m *Model) enableKeys() {
	list := m.view <= viewProblems
	for _, b := range []*key.Binding{&m.km.Search, &m.km.NextView, &m.km.Accounts, &m.km.Locks, &m.km.Problems} {
		b.SetEnabled(!m.searching)
	}
	m.km.NextProblem.SetEnabled(list && m.view != viewProblems)
	m.km.PrevProblem.SetEnabled(list && m.view != viewProblems)
	m.km.Back.SetEnabled(m.view != viewAccounts || m.accounts.pin != nil)
	writes := m.store.Writable() && list
	for _, b := range []*key.Binding{&m.km.Edit, &m.km.Delete, &m.km.Fix, &m.km.Add} {
		b.SetEnabled(writes)
	}
}
