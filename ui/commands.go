package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/ui/command"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/writelog"
)

// entry is a command of the command line (:) and what it does: adding a
// command is one entry in commands.
type entry struct {
	command.Command
	run func(m Model, call command.Call) (Model, tea.Cmd)
}

// commands are the command line's, in the order tab offers them. Each
// that a key also does says so.
func (m Model) commands() []entry {
	km := m.setup.km
	view := func(v view) func(Model, command.Call) (Model, tea.Cmd) {
		return func(m Model, _ command.Call) (Model, tea.Cmd) { return m, m.switchTo(v) }
	}
	// No targets is a list (none is known); no tables is none (the
	// endpoint cannot list them: any name is tried).
	targets, tables, listing := append([]string{}, m.setup.opts.Targets...), m.layers.tables, m.layers.listing
	columns := m.columnCommands()
	return []entry{
		{command.Command{Name: "accounts", Help: "the " + m.views.accounts.Title() + " view (" + km.Accounts.Help().Key + ")"}, view(viewAccounts)},
		{command.Command{Name: "locks", Help: "the Locks view (" + km.Locks.Help().Key + ")"}, view(viewLocks)},
		{command.Command{Name: "problems", Help: "the Problems view (" + km.Problems.Help().Key + ")"}, view(viewProblems)},
		{command.Command{Name: "items", Help: "the Items view: what is neither an account nor a lock (" + km.Items.Help().Key + ")"}, view(viewItems)},
		{command.Command{Name: "writes", Help: "the writes log of this session (" + km.WriteLog.Help().Key + ")"}, func(m Model, _ command.Call) (Model, tea.Cmd) {
			return m, events.Emit(writelog.OpenMsg{})
		}},
		{command.Command{Name: "find", Args: "VALUE|KEY", Help: "look it up in the whole table, as locktable find"}, func(m Model, c command.Call) (Model, tea.Cmd) {
			var cmd tea.Cmd
			m.layers.search, cmd = m.layers.search.Find(c.Arg)
			return m, cmd
		}},
		{command.Command{Name: "export", Args: "FILE", Help: "write the rows shown, as filtered, to FILE: .csv or .json (one object a line)",
			Bang: "writes over a FILE that exists"}, func(m Model, c command.Call) (Model, tea.Cmd) {
			return m.exportShown(c.Arg, c.Bang)
		}},
		{command.Command{Name: "target", Args: "NAME", Help: "open a target of the config file",
			Complete: func() []string { return targets }}, func(m Model, c command.Call) (Model, tea.Cmd) {
			return m.reopenOn(Reopen{Target: c.Arg})
		}},
		{command.Command{Name: "table", Args: "NAME", Help: "open another table of this endpoint",
			Complete: func() []string { return tables }, Listing: func() bool { return listing }}, func(m Model, c command.Call) (Model, tea.Cmd) {
			return m.reopenOn(Reopen{Table: c.Arg})
		}},
		columns[0], columns[1],
		{command.Command{Name: "q", Help: "quit (" + km.Quit.Help().Key + ")"}, func(m Model, _ command.Call) (Model, tea.Cmd) { return m, tea.Quit }},
	}
}

// lineCommands are the commands as the command line reads them.
func (m Model) lineCommands() []command.Command {
	es := m.commands()
	cmds := make([]command.Command, len(es))
	for i, e := range es {
		cmds[i] = e.Command
	}
	return cmds
}

// openCommandLine opens the command line over what is shown, and lists
// the endpoint's tables for :table once: a :table typed before they are
// in waits for them (command.Command.Listing).
func (m Model) openCommandLine() (Model, tea.Cmd) {
	m.help.open = false
	m.layers.detail.Close()
	var cmd tea.Cmd
	if m.layers.tables == nil && !m.layers.listing {
		m.layers.listing = true
		cmd = listTables(m.setup.ctx, m.setup.opts.Tables)
	}
	m.layers.cmdline.SetCommands(m.lineCommands())
	var open tea.Cmd
	m.layers.cmdline, open = m.layers.cmdline.Open()
	return m, tea.Batch(cmd, open)
}

// onTables takes the endpoint's tables, and does what a key on the
// command line waited for them to do.
func (m Model) onTables(msg tablesMsg) (Model, tea.Cmd) {
	m.layers.tables, m.layers.listing = msg.names, false
	m.layers.cmdline.SetCommands(m.lineCommands())
	m.layers.cmdline = m.layers.cmdline.Resume()
	return m.runEntered(nil)
}

// onCommandKey hands a key to the command line, and runs what it enters.
func (m Model) onCommandKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	m.layers.cmdline, cmd = m.layers.cmdline.Update(msg)
	return m.runEntered(cmd)
}

// runEntered runs the command the line entered, if it did; cmd is the
// line's own.
func (m Model) runEntered(cmd tea.Cmd) (Model, tea.Cmd) {
	call, ok := m.layers.cmdline.Take()
	if !ok {
		return m, cmd
	}
	for _, e := range m.commands() {
		if e.Name == call.Name {
			var run tea.Cmd
			m, run = e.run(m, call)
			return m, tea.Batch(cmd, run, m.prefetch())
		}
	}
	return m, cmd
}

// Reopen is what the UI asks to be opened instead once it has quit
// (:target, :table): the caller starts it again on that (Model.Reopen).
type Reopen struct {
	Target string // a target of the config file, as --target
	Table  string // another table of the endpoint, as --table
}

// Reopen is what the UI asks to be opened next, if it asked.
func (m Model) Reopen() (Reopen, bool) {
	if m.reopen == nil {
		return Reopen{}, false
	}
	return *m.reopen, true
}

// History is the command line's lines of this session, for the UI that
// replaces this one (Options.History).
func (m Model) History() []string { return m.layers.cmdline.History() }

// Writes is the writes log of this session, for the UI that replaces this
// one (Options.Writes).
func (m Model) Writes() writelog.Writes { return m.layers.writelog.Writes() }

// reopenOn quits, asking to be opened on r.
func (m Model) reopenOn(r Reopen) (Model, tea.Cmd) {
	if m.layers.write.Sending() || m.layers.batch.Sending() {
		m.status = "a write is on its way: wait for its outcome before switching"
		return m, nil
	}
	m.reopen = &r
	return m, tea.Quit
}

// TableLister lists the endpoint's tables, for :table.
type TableLister interface {
	Tables(ctx context.Context) ([]string, error)
}

// tablesMsg carries the endpoint's tables (nil when they cannot be
// listed: :table then takes any name).
type tablesMsg struct{ names []string }

func listTables(ctx context.Context, b TableLister) tea.Cmd {
	return func() tea.Msg {
		names, err := b.Tables(ctx)
		if err != nil {
			return tablesMsg{}
		}
		return tablesMsg{names: names}
	}
}
