package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/locktable/locktable/cli/flagname"
	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/tty"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/mistake"
	"github.com/locktable/locktable/ui"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/mistakes"
	"github.com/locktable/locktable/ui/picker"
)

// runTUI opens the terminal UI on the table. Errors before it starts (a
// missing table, a dead endpoint) are printed like any command's; once it
// runs it owns the terminal and nothing else writes to it.
func (a *app) runTUI(ctx context.Context) error {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return usageErr("the terminal UI needs a terminal; for scripts use 'locktable check'")
	}
	// What is typed while the UI starts is kept for it, not echoed on the
	// shell's screen; what is left unread at the end does not reach the
	// shell.
	defer tty.Quiet(os.Stdin)()
	s, err := a.schema()
	if err != nil {
		return err
	}
	if a.accountsIndex != "" {
		if err := model.ValidateTableName(a.accountsIndex); err != nil {
			return usageErr("--accounts-index: index %v", err)
		}
	}
	store, err := a.backend(ctx, s)
	if err != nil {
		return err
	}
	defer a.holdUIMemory(store)()
	// A writable store is probed once the first rows are on screen: the
	// UI shows what the backend lacks when it is known, and turns read
	// only on one without transactions (its writes wait for the answer).
	// The first page holds the accounts that fill the terminal.
	_, height, _ := term.GetSize(int(os.Stdout.Fd()))
	open := ui.OpenOptions{Constraints: len(store.Schema.Constraints), AccountsIndex: a.accountsIndex, Probe: store.Writable(), Height: height}
	opened, err := ui.Open(ctx, store, store.Pages, open)
	if err != nil {
		// No table given and the default one is not there: pick one.
		if !dynamo.IsTableNotFound(err) || a.cmd.PersistentFlags().Changed("table") || a.from("table") != "" {
			return err
		}
		table, perr := a.pickTable(ctx, store)
		if perr != nil || table == "" {
			return perr
		}
		store.Schema.Table = table
		if opened, err = ui.Open(ctx, store, store.Pages, open); err != nil {
			return err
		}
	}
	var auditPath string // shown by the writes log
	if store.Writable() {
		audit, err := a.openAudit()
		if err != nil {
			return err
		}
		store.Audit, store.Undo = audit, a.undo
		auditPath, _ = a.auditPath() // openAudit found it
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The mistakes menu writes problems on purpose: the demo and loopback
	// tables only, as demo break.
	var replay mistakes.Runner
	if store.Writable() && (store.Endpoint.Demo || store.Endpoint.Loopback) {
		replay = func(ctx context.Context, name string) (mistake.Replay, error) {
			kind, _ := mistake.Find(name)
			return replayMistake(ctx, store, kind)
		}
	}
	roles := uiRoles(store)
	roles.Stream = a.liveStream(store)
	m := ui.New(ctx, ui.Options{Roles: roles, Clock: a.clock, Follow: time.Duration(a.follow) * time.Second, MaxWCU: a.maxWCU, Schema: store.Schema, Endpoint: store.Endpoint,
		ApproxItems: store.ApproxItems, ReadOnly: !store.Writable(), ReadOnlyWhy: a.readOnlyWhy(store), Capabilities: opened.Capabilities, Shown: opened.Shown,
		SayField: flagname.Say, Theme: string(a.theme), Keys: a.keyMap(), Mouse: a.mouse, Targets: a.targets(), History: a.carried.history, Writes: a.carried.writes, Notice: a.carried.notice, First: opened.First, FirstLocks: opened.FirstLocks, Break: replay, AuditLog: auditPath,
		Columns: a.hiddenColumns(), SaveColumns: a.saveColumns()})
	return a.runUI(ctx, m, colors())
}

// colors is the terminal's colour profile, which Bubble Tea would find
// again once it starts (in tmux by running 'tmux info', milliseconds of a
// process started before the first frame): lipgloss found it already, as
// its package was initialised, from the same stdout and environment.
func colors() colorprofile.Profile { return lipgloss.Writer.Profile }

// runUI runs the UI in the terminal, in the colour profile found, until it
// quits, then does what it asks of the command: print how a write it
// waited for ended, open another table or target (:table, :target).
func (a *app) runUI(ctx context.Context, m ui.Model, colors colorprofile.Profile) error {
	// The UI names the table in the window title, and Bubble Tea sets it
	// to empty on exit: the terminal keeps the title it had on its stack
	// meanwhile (XTWINOPS), and gets it back.
	fmt.Fprint(os.Stdout, pushTitle)
	a.shown = true
	defer func() { _ = items.CloseStores() }() // the accounts kept on disk: temporary files
	final, err := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(tty.NewInput(os.Stdin)), tea.WithColorProfile(colors), tea.WithFPS(frameRate)).Run()
	fmt.Fprint(os.Stdout, popTitle)
	if fm, ok := final.(ui.Model); ok {
		// The terminal is the command's again.
		if fm.Farewell() != "" {
			fmt.Fprintln(a.stderr, fm.Farewell())
		}
		if r, ok := fm.Reopen(); ok && err == nil {
			a.reopen, a.carried = a.reopenArgs(r), carried{history: fm.History(), writes: fm.Writes()}
		}
	}
	if errors.Is(err, tea.ErrInterrupted) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// frameRate is how many frames a second Bubble Tea may draw: a frame
// waits for the next tick, so 120 (its most) puts what an update drew,
// the first rows included, on screen within 8 ms instead of 17. A tick
// with nothing new draws nothing.
const frameRate = 120

// pushTitle and popTitle save the window title on the terminal's stack
// and restore it (XTWINOPS 22;0 and 23;0: icon name and title both);
// terminals without a stack ignore them.
var pushTitle, popTitle = ansi.WindowOp(22, 0), ansi.WindowOp(23, 0)

// targets are the config file's targets, for the UI's :target.
func (a *app) targets() []string {
	if a.settings == nil || a.settings.File == nil {
		return nil
	}
	return a.settings.File.Names()
}

// keyMap is the config file's keys: as the UI takes them.
func (a *app) keyMap() map[string][]string {
	m := map[string][]string{}
	for _, b := range a.keys {
		m[b.Name] = b.Keys
	}
	return m
}

// pickTable lists the endpoint's tables and lets the user choose one; ""
// when they quit.
func (a *app) pickTable(ctx context.Context, store *dynamo.Store) (string, error) {
	names, err := store.Tables(ctx)
	if err != nil {
		return "", err
	}
	final, err := tea.NewProgram(picker.New(ctx, store.Endpoint.String(), names, store.ItemCount, ui.RemappedKeys(a.keyMap()).Picker), tea.WithContext(ctx)).Run()
	if err != nil {
		if errors.Is(err, tea.ErrInterrupted) || errors.Is(err, context.Canceled) {
			return "", nil
		}
		return "", err
	}
	return final.(picker.Model).Chosen(), nil
}

// readOnlyWhy says why the flags keep a store from writing ("" when they
// do not); a backend without transactions is found once the UI runs,
// which says so then.
func (a *app) readOnlyWhy(store *dynamo.Store) string {
	if err := a.mayWrite(store.Endpoint); err != nil && !store.Writable() {
		return err.Error()
	}
	return ""
}

// hiddenColumns are the columns the config file hides, by view.
func (a *app) hiddenColumns() map[string][]string {
	if a.settings == nil || a.settings.File == nil {
		return nil
	}
	return a.settings.File.Hidden()
}

// saveColumns writes the columns a view of the UI hides into the config
// file (:hide!, :show!): the one in use, or the default one, created;
// nil where there is none to write.
func (a *app) saveColumns() func(view string, hidden []string) error {
	if a.settings == nil || a.settings.File == nil || a.settings.File.Path == "" {
		return nil
	}
	path, spec := a.settings.File.Path, a.spec()
	return func(view string, hidden []string) error { return config.SetHiddenColumns(path, view, hidden, spec) }
}
