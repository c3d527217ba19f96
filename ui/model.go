// Package ui is locktable's terminal UI. The root model routes: it keeps
// the terminal's size, the list views behind one component (views.go)
// and the layers that open over them, ordered once (layers.go: the one
// on top takes the keys and is drawn), and pumps the background work's
// messages; each view is a widget package under it that owns its data,
// its paging and its requests.
package ui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/startuptrace"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/check"
	"github.com/locktable/locktable/ui/command"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/live"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/mistakes"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/problems"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/statusbar"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/write"
	"github.com/locktable/locktable/ui/writelog"
)

// Minimum terminal size: below it the UI says so instead of drawing.
const (
	MinWidth  = 60
	MinHeight = 16
)

// Options configure the UI.
type Options struct {
	// Roles are what the UI reads and writes through.
	Roles
	// Schema and Endpoint describe the tables the Roles read, for the rows and
	// the header; ApproxItems is their approximate item count, for the
	// check's progress until it reports its own.
	Schema      model.Schema
	Endpoint    backend.Endpoint
	ApproxItems int64
	ReadOnly    bool // writes are disabled: shown in the header
	// Missing says what the backend lacks, one line each
	// (backend.Capabilities.Missing): said in full at the end of help, not
	// on the first screen (an action that needs what is missing says so).
	Missing []string
	// ReadOnlyWhy says why writes are disabled (--read-only, a remote
	// endpoint without --write ...): the status line says it when a write
	// key is pressed.
	ReadOnlyWhy string
	// SaveDir is where a previewed request is saved ("": the current
	// directory).
	SaveDir string
	// Theme is "dark" or "light" to fix the colours, anything else to
	// follow the terminal's background (the config file's theme:).
	Theme string
	// Keys remaps bindings by name (BindingNames), from the config file's
	// keys:.
	Keys map[string][]string
	// NoCheck skips the background check (tests of paging alone).
	NoCheck bool
	// Break replays a mistake on fresh accounts (B); nil where that is not
	// allowed (anything but the demo or a loopback endpoint).
	Break mistakes.Runner
	// AuditLog is the audit log's path, which the writes log shows ("":
	// none, on a read-only store).
	AuditLog string
	// SayField is how hints name a setting of the schema: as the flag
	// that sets it (cli's flagname.Say); nil, by its field's name.
	SayField func(model.SchemaField) string
	// Mouse turns the mouse on (the config file's mouse:): a click
	// selects a row, the wheel scrolls. Off, the terminal keeps its own
	// selection of text, as k9s does.
	Mouse bool
	// Targets are the config file's targets, for :target.
	Targets []string
	// History is the command line's, from the UI this one replaces
	// (Model.History after a Reopen).
	History []string
	// Writes are the writes log's, from the UI this one replaces
	// (Model.Writes after a Reopen): the log lasts as long as the UI runs.
	Writes writelog.Writes
	// Notice is what the status line says until the first key: why the
	// UI came back on this table rather than open another (a reopen that
	// failed).
	Notice string
	// First is the first page of accounts when it was asked for ahead
	// (Open): the accounts view waits for it instead of asking.
	First accounts.FirstPage
	// FirstLocks brings the locks of First's accounts, when they come
	// without them (Opened.FirstLocks).
	FirstLocks accounts.FirstLocks
	// Capabilities waits for what the probe found, which Open asks once
	// the first rows are on screen (nil: nothing probed, Missing says it
	// all). What the backend lacks goes to help when it comes, and writes
	// are turned off where it cannot write (the header says READ-ONLY).
	Capabilities Capabilities
	// Shown is called once the first rows are on screen (Opened.Shown):
	// the probes wait for it.
	Shown func()
	// Clock tells the time: TTLs are judged at it as the table changes
	// (Roles.Stream), and the time words on screen are redrawn each of
	// its seconds. It must be set when a stream is followed; unset, the
	// words stay as judged when their rows were read.
	Clock clock.Clock
	// Follow is how often the rows on screen are read again when the
	// table has no stream to follow (--follow, the config file's follow:;
	// 0: only when r is pressed). The reads are paced within --max-rcu,
	// as every read of the store. It needs Clock.
	Follow time.Duration
	// Columns are the columns hidden in each view at start, by its name
	// (ViewNames), from the config file's hide-columns.
	Columns map[string][]string
	// SaveColumns saves the columns hidden in a view (ViewNames) to the
	// config file (:hide!, :show!); nil where there is no file to save to.
	SaveColumns func(view string, hidden []string) error
	// MaxWCU is --max-wcu, the write budget the store paces a bulk fix's
	// transactions within (0: none): its preview and progress say it.
	MaxWCU float64
}

// Model is the root model. It routes: the list views (views), what is
// open over them (layers), and the background work's messages.
type Model struct {
	setup         setup
	width, height int
	views         views
	items         *items.Cache // what every view shows of the table, by key
	own           *items.Own   // what this session's writes leave, to tell the stream's records of them
	// judged is the last batch of the follow's judgements handled, and
	// checkSince what it was when the running check began (live.Know).
	judged, checkSince int
	check              check.Model
	live               live.Model // the table's stream followed: others' writes show unasked
	layers             layers
	help               helpScreen
	spinner            spinner.Model
	writeKeys          writeKeys
	status             string // what the last key did not do, or what is being done
	// exactAsked is the key whose exact bytes CopyExact asked to copy:
	// pressed again next, it copies them.
	exactAsked string
	// reopen is what the UI quit to open instead (Reopen).
	reopen *Reopen
}

// setup is what New sets up for the UI's life: the options, the table's
// schema, the keys and styles, where background work reports, and ctx,
// which bounds every request (the read of C too). Only the probe changes
// it, turning writes off (disableWrites).
type setup struct {
	opts   Options
	schema *model.Schema
	km     keymap.KeyMap
	st     *styles.Styles
	pump   events.Pump
	ctx    context.Context
	// altBound says the config binds a key with alt: such keys are not
	// split (escThen).
	altBound bool
}

// writeKeys are the write keys of each list view (byView), named short:
// the help line keeps them longest; on a read-only store (enabled false),
// where they do nothing, the status says why when one is pressed. race is
// a write the help screen offers, not the line.
type writeKeys struct {
	byView  [4][]key.Binding
	race    key.Binding
	enabled bool
}

// helpScreen is the help screen: whether it is open, its pages, laid out
// when help opens and on a resize (layHelp), not each frame, and the
// page shown; nav are its paging keys, line renders the help line.
type helpScreen struct {
	open  bool
	page  int
	pages []string
	nav   HelpKeyMap
	line  help.Model
}

// New returns the root model for a store. ctx bounds every request.
func New(ctx context.Context, o Options) Model {
	keys := RemappedKeys(o.Keys)
	km := keys.Root
	st := styles.New(o.Theme != "light")
	sc := o.Schema
	// Layout 2 keeps records, not accounts: the help says so.
	one, many := sc.Nouns()
	km.Accounts.SetHelp(km.Accounts.Help().Key, many)
	km.Add.SetHelp(km.Add.Help().Key, "add "+one)
	r := &rows.Renderer{Schema: &sc, Styles: &st}
	pump := events.NewPump()
	km.Break.SetEnabled(o.Break != nil)
	akm, lkm, pkm := keys.Accounts, keys.Locks, keys.Problems
	short := func(b key.Binding, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
	}
	add, undo := short(km.Add, "add"), short(km.Undo, "undo")
	var writes [4][]key.Binding
	writes[viewAccounts] = []key.Binding{short(akm.Edit, "rename"), short(akm.Delete, "delete"), short(akm.Fix, "fix"), add, undo}
	writes[viewLocks] = []key.Binding{short(lkm.Fix, "fix"), short(lkm.FixMarked, "fix marked"), add, undo}
	writes[viewProblems] = []key.Binding{short(pkm.Fix, "fix"), short(pkm.FixMarked, "fix marked"), add, undo}
	writes[viewItems] = []key.Binding{add, undo}
	// One picture of the table: every view keeps what it reads in one
	// cache, and judges by the check's report it holds.
	cache := items.New(&sc)
	w := write.New(ctx, o.Writer, &sc, &st, cache, keys.Dialog)
	w.SaveDir = o.SaveDir
	acc := accounts.New(ctx, accountsBackend(o), r, cache, akm)
	acc.SetFirst(o.First, o.FirstLocks)
	cmdline := command.New(nil, keys.Command)
	cmdline.SetHistory(o.History)
	m := Model{
		setup: setup{opts: o, schema: &sc, km: km, st: &st, pump: pump, ctx: ctx, altBound: bindsAlt(o.Keys)},
		views: views{
			accounts: acc,
			locks:    locks.New(ctx, o.Pages, r, cache, lkm),
			problems: problems.New(r, pkm),
			others:   others.New(ctx, o.Pages, r, cache, keys.Items),
		},
		items: cache,
		own:   &items.Own{},
		check: check.New(ctx, o.Check, pump, &sc, o.ApproxItems, o.SayField),
		live:  live.New(ctx, o.Stream, pump, &sc, o.Pages, holderFinder(o.Lookup), o.Clock, o.Follow),
		layers: layers{
			detail:   detail.New(ctx, o.Pages, cache, keys.Detail),
			search:   search.New(ctx, o.Lookup, &sc, cache, pump, keys.Search),
			cmdline:  cmdline,
			write:    w,
			batch:    batch.New(ctx, o.Writer, &sc, &st, keys.Dialog, cache.Report, o.MaxWCU),
			mistakes: mistakes.New(ctx, o.Break, &st, keys.Mistakes),
			writelog: writelog.New(keys.WriteLog, &st, o.AuditLog),
		},
		help:      helpScreen{nav: keys.Help, line: help.New()},
		spinner:   spinner.New(spinner.WithSpinner(spinner.Dot)),
		writeKeys: writeKeys{byView: writes, race: short(km.Race, "race"), enabled: true},
	}
	m.layers.writelog.Carry(o.Writes)
	m.hideColumns(o.Columns)
	m.status = o.Notice
	// Writes are offered only where they are allowed.
	if !o.Writable {
		m.disableWrites()
	}
	return m
}

// disableWrites turns off the keys that write, wherever they are bound:
// on a store that may not write, and once the probe finds that the
// backend cannot (Options.Capabilities).
func (m *Model) disableWrites() {
	m.writeKeys.enabled = false
	for _, b := range []*key.Binding{&m.setup.km.Add, &m.setup.km.Race, &m.setup.km.Undo, &m.setup.km.Break} {
		b.SetEnabled(false)
	}
	m.views.accounts.DisableWrites()
	m.views.locks.DisableWrites()
	m.views.problems.DisableWrites()
}

// Init asks for the background colour and the first page, waits for what
// the probe finds, and listens for the background work.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.setup.pump.Listen(), m.spinner.Tick, m.views.accounts.Init()}
	if m.setup.opts.Capabilities != nil {
		cmds = append(cmds, awaitCapabilities(m.setup.opts.Capabilities))
	}
	if m.setup.opts.Theme != "dark" && m.setup.opts.Theme != "light" {
		cmds = append(cmds, tea.RequestBackgroundColor) // auto: follow the terminal
	}
	return tea.Batch(cmds...)
}

// listHeight is the rows left for a list under the two header lines and
// above the status and help lines.
func (m Model) listHeight() int { return listRows(m.height) }

// listRows is the rows a list has in a terminal of height rows.
func listRows(height int) int { return max(height-4, 1) }

// listTop is the screen line of a list's first row, under the header.
const listTop = 2

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	lh := m.listHeight()
	m.views.accounts.Pager().SetSize(w, lh)
	m.views.locks.SetSize(w, lh)
	m.views.problems.SetSize(w, lh)
	m.views.others.SetSize(w, lh)
	m.layers.detail.SetSize(w, lh-1)
	m.layers.write.SetSize(w, lh)
	m.layers.batch.SetSize(w, lh)
	m.layers.writelog.SetSize(w, lh)
	m.layers.mistakes.SetWidth(w)
	m.help.line.SetWidth(w)
	m.layers.search.SetSize(w, 1)
	m.layers.cmdline.SetWidth(w)
	if m.help.open {
		m.layHelp()
	}
}

// copyRef is the key the copy keys copy: the item the detail shows, or
// the one on the selected row of the list shown; false over help, or on a
// row with no item (a heading, a missing lock).
func (m Model) copyRef() (model.KeyRef, bool) {
	switch m.top(layerWrite) {
	case layerDetail:
		if m.layers.shownRef == nil {
			return model.KeyRef{}, false
		}
		return *m.layers.shownRef, true
	case layerList:
		return m.views.tab().SelectedRef()
	}
	return model.KeyRef{}, false
}

// Farewell is what the UI asks to be printed once it has left the
// terminal: the outcome of a write it waited for before quitting.
func (m Model) Farewell() string {
	if f := m.layers.batch.Farewell(); f != "" {
		return f
	}
	return m.layers.write.Farewell()
}

// View renders the screen.
func (m Model) View() tea.View {
	if startuptrace.On() && m.views.accounts.Pager().Count() > 0 {
		startuptrace.Mark("first frame")
	}
	v := tea.NewView(m.content())
	v.AltScreen = true
	if m.setup.opts.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "locktable: " + model.Printable(m.setup.schema.Table)
	return v
}

// tooSmall reports whether the terminal is below the minimum size: the
// screen says so, and every key but quit is ignored.
func (m Model) tooSmall() bool { return m.width < MinWidth || m.height < MinHeight }

func (m Model) content() string {
	if m.tooSmall() {
		return statusbar.TooSmall(m.width, m.height, MinWidth, MinHeight, m.setup.km.Quit.Help().Key)
	}
	h := statusbar.Header{
		Table: m.setup.schema.Table, Where: where(m.setup.opts.Endpoint), ReadOnly: m.setup.opts.ReadOnly,
		Views: append([]string{m.views.accounts.Title()}, viewTitles[1:m.tabs()]...), Short: m.tabShort(), Active: int(m.views.shown), Check: m.check.Bar(),
		Live: m.live.Header(), Sort: m.views.tab().sort,
	}
	body := m.on(m.top(layerWrite)).view()
	var err error
	if fs := m.failures(); len(fs) > 0 {
		err = fs[0].err
	}
	header, sortSaid := h.RenderSaying(m.setup.st, m.width)
	status := m.statusText()
	if !sortSaid && status != "" && !strings.Contains(status, "sorted by") {
		status += " · " + h.Sort.Words() // the header keeps the tabs' names
	}
	bottom := statusbar.Status(m.setup.st, m.width, m.spinner.View(), m.loading(), status, errText(err))
	if l := m.top(layerSearch); l < layerWrite {
		bottom = m.on(l).view() // a field typed into
	}
	if first, _, two := strings.Cut(bottom, "\n"); two {
		if l := m.top(layerWrite); l < layerHelp {
			// A dialog's keys (enter send, esc cancel) stay on screen:
			// the status keeps one line.
			bottom = ansi.Truncate(first, m.width-1, "") + "…"
		} else {
			// Elsewhere a status of two lines takes the help line's.
			return header + "\n" + padLines(body, m.listHeight()) + "\n" + bottom
		}
	}
	return header + "\n" + padLines(body, m.listHeight()) + "\n" + bottom + "\n" + m.footer()
}

// active is what takes the keys the root does not: the search field, the
// dialog, the detail, or the list view (nothing while help is open).
func (m Model) active() help.KeyMap { return m.on(m.top(layerSearch)).keys() }

// noKeys is help for what takes no keys.
type noKeys struct{}

func (noKeys) ShortHelp() []key.Binding  { return nil }
func (noKeys) FullHelp() [][]key.Binding { return nil }

// list is the list view shown, or the writes log over it.
func (m Model) list() help.KeyMap {
	return m.on(m.top(layerWriteLog)).keys()
}

func (m Model) loading() bool {
	return m.views.accounts.Pager().Paging().Loading() || m.views.locks.Loading() || m.views.others.Loading() || m.layers.search.Busy()
}

// statusText says what is being done, or what is loaded.
func (m Model) statusText() string {
	switch {
	case m.layers.write.Open() || m.layers.write.Status() != "":
		// The dialog's own, or nothing: the list's is not about the dialog.
		return m.layers.write.Status()
	case m.status != "":
		return m.status
	case m.layers.search.Status() != "":
		return m.layers.search.Status()
	}
	return m.on(m.top(layerHelp)).status()
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

// where names the endpoint for the header: its URL, or the AWS region and
// the profile in use.
func where(ep backend.Endpoint) string {
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
	return redact.String(err.Error())
}

// copyKeys enables the copy keys where there is a key to copy and no
// text is typed.
func (m Model) copyKeys(km *keymap.KeyMap, text bool) {
	_, copyable := m.copyRef()
	copyable = copyable && !text
	km.CopyKey.SetEnabled(copyable)
	// A detail copies the item it read: a missing lock's has none.
	km.CopyItem.SetEnabled(copyable && !m.layers.detail.Missing())
	km.CopyExact.SetEnabled(copyable)
}

// keys are the root's bindings as they work now, each disabled where it
// does nothing, so that help says what the keys do. In the search field
// and the dialog every key is text but ctrl+c.
func (m Model) keys() keymap.KeyMap {
	km := m.setup.km
	text := m.typing()
	for _, b := range []*key.Binding{&km.NextView, &km.PrevView, &km.Accounts, &km.Locks, &km.Problems, &km.Items, &km.Search, &km.Command, &km.Reload, &km.Help, &km.Quit} {
		b.SetEnabled(!text)
	}
	km.Interrupt.SetEnabled(text)
	m.copyKeys(&km, text)
	over := m.top(layerHelp) != layerList // help, the detail or the writes log
	km.Add.SetEnabled(km.Add.Enabled() && !text && !over)
	km.Race.SetEnabled(km.Race.Enabled() && !text && !over)
	km.Break.SetEnabled(km.Break.Enabled() && !text && !over)
	// Over the writes log u is the log's: it undoes the selected write.
	km.Undo.SetEnabled(km.Undo.Enabled() && !m.layers.writelog.Shown())
	km.WriteLog.SetEnabled(!text && !m.layers.writelog.Shown())
	km.Back.SetEnabled(!text && (over || m.views.shown != viewAccounts))
	m.filterKeys(&km, text)
	if !text && over {
		// Over the detail and help q goes back, as esc does: it quits only
		// from a list view (k9s, lazygit).
		km.Back.SetKeys(append(km.Back.Keys(), km.Quit.Keys()[0])...)
		km.Back.SetHelp(km.Back.Help().Key+"/"+km.Quit.Help().Key, km.Back.Help().Desc)
		km.Quit.SetEnabled(false)
		km.Interrupt.SetEnabled(true)
	}
	return km
}
