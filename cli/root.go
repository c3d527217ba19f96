// Package cli is locktable's command tree: global flags, opening the
// backend, and the headless subcommands.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/demo"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/startuptrace"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
	"github.com/locktable/locktable/ui/writelog"
)

// app holds the global flags and what they open.
type app struct {
	// clock is the process's time (see package clock), which every
	// judgement of time reads.
	clock          clock.Clock
	stdin          io.Reader
	stdout, stderr io.Writer

	endpointURL, region, profile string
	demo, write, readOnly        bool
	logFile, accountsIndex       string
	auditLog                     string
	lastSchema                   model.Schema // the schema parsed, for messages
	segments, pageSize           int
	maxRCU                       float64
	uiMemory                     byteSize // the TUI's --max-memory
	follow                       int      // seconds between polls of the rows on screen (--follow)
	maxWCU                       float64
	schemaFlags                  schemaFlags
	presetNotes                  []string // what a preset read from the table
	// seedPresetTable has backend create a missing electrodb preset's
	// table before reading it (seed); presetCreated names it if so.
	seedPresetTable bool
	presetCreated   []string

	// settings is where every flag's value came from, once settled
	// (settle); theme, keys and mouse are the config file's preferences
	// for the terminal UI (ui.Options.Theme, Keys and Mouse).
	settings *config.Settings
	theme    config.Theme
	keys     []config.Binding
	mouse    bool
	// reopen is the command line the terminal UI quit to be run with
	// (:table, :target), nil for none; carried is what that UI hands on
	// to the one opened then.
	reopen  []string
	carried carried
	// shown says the terminal UI ran (a reopen that fails before it does
	// goes back to the UI it left); failed is the error the run printed.
	shown  bool
	failed string

	cmd *cobra.Command // the root, for its flag set
	// conn is the connection the store's client was built from (backend),
	// which builds the streams client too (watch).
	conn    *dynamo.Connection
	closers []func()
	// undo is the undo journal beside the audit log, once openAudit
	// opened it (nil when the audit log is not a regular file).
	undo *dynamo.UndoJournal
}

// Main runs locktable with args, at the time clk tells, and returns its
// exit status. What build leaves empty is read from the binary's build
// information.
func Main(ctx context.Context, clk clock.Clock, build BuildInfo, args []string, stdout, stderr io.Writer) int {
	var c carried
	var left []string // the command line of the UI that asked to be reopened
	for {
		// The terminal UI may quit to be opened on another table or
		// target (:table, :target): a fresh run, as if started so, but
		// for what the UI carries on (carried).
		code, a := run(ctx, clk, build, args, stdout, stderr, c)
		if left != nil && code != ExitOK && !a.shown && ctx.Err() == nil {
			// What it asked for did not open (a table keyed otherwise, no
			// access): the UI comes back on what it left, saying why,
			// rather than the session ending on the error.
			args, left, c.notice = left, nil, "not opened: "+a.failed
			continue
		}
		if a.reopen == nil || code != ExitOK {
			return code
		}
		args, c, left = a.reopen, a.carried, args
	}
}

// carried is what the terminal UI hands on to the one opened in its
// place (:table, :target): the command line's history and the writes
// log, which last as long as the UI runs, whatever table it shows.
type carried struct {
	history []string
	writes  writelog.Writes
	notice  string // why the UI is back on what it left, if it is
}

// run runs locktable once with args (c is what the UI it replaces, if
// any, carries on), and returns its exit status and the app, which holds
// the command line to run next if the UI asked for one.
func run(ctx context.Context, clk clock.Clock, build BuildInfo, args []string, stdout, stderr io.Writer, c carried) (int, *app) {
	a := &app{clock: clk, stdin: os.Stdin, stdout: stdout, stderr: stderr, carried: c}
	defer a.close()
	root := a.rootCommand(build.resolved())
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	// Cut short by a signal: unless a write settled and reported its own
	// outcome (3, 4), the command says so in one line.
	var intr Interrupted
	if errors.As(context.Cause(ctx), &intr) && err != nil && code == ExitError {
		clearLine(stderr) // a progress line, if any
		fmt.Fprintln(stderr, "locktable: interrupted")
		return intr.code(), a
	}
	var e *exitError
	if err != nil && (!errors.As(err, &e) || e.err != nil) {
		a.failed = model.OneLine(redact.String(err.Error()))
		fmt.Fprintln(stderr, "locktable: "+a.failed)
	}
	return code, a
}

func (a *app) rootCommand(build BuildInfo) *cobra.Command {
	root := &cobra.Command{
		Use:   "locktable",
		Short: "See and fix uniqueness locks in DynamoDB tables",
		Long: `locktable shows and fixes DynamoDB tables that keep attributes unique with
lock items (UNIQ#EMAIL#..., UNIQ#HANDLE#...) written in one guarded
transaction with each account: orphan, missing, foreign and duplicate locks.

Without a command it opens the terminal UI on --table (try --demo: an
embedded DynamoDB with a demo table, no AWS account needed).

Every flag can also come from a LOCKTABLE_<FLAG> environment variable
(LOCKTABLE_ENDPOINT_URL) or from a target of the config file; the command
line wins, then the environment, then the target. 'locktable config show'
says where each value came from.`,
		Example: `  locktable --demo                                  # the UI on an embedded demo table
  locktable --endpoint-url http://localhost:8000    # the UI on a local emulator
  locktable --target prod                           # the UI on a target of the config file
  locktable check --json | jq .problems`,
		Version:       build.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if !settles(cmd) {
				return nil
			}
			return a.settle()
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runTUI(cmd.Context())
		},
	}
	a.cmd = root
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	pf := root.PersistentFlags()
	pf.String("config", "", "the config file of targets (default: $XDG_CONFIG_HOME/locktable/config.yaml)")
	pf.String("target", "", "take settings from this target of the config file (default: the file's default)")
	pf.StringVar(&a.endpointURL, "endpoint-url", "", "DynamoDB endpoint, e.g. http://localhost:8000 (default: AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, then AWS)")
	pf.StringVar(&a.region, "region", "", "AWS region (default: the SDK's configuration; us-east-1 for a local endpoint)")
	pf.StringVar(&a.profile, "profile", "", "AWS shared config profile")
	pf.BoolVar(&a.demo, "demo", false, "use an embedded in-process DynamoDB seeded with a demo table that has every kind of problem")
	pf.BoolVar(&a.write, "write", false, "allow writes to a non-loopback endpoint")
	pf.BoolVar(&a.readOnly, "read-only", false, "forbid every write")
	pf.StringVar(&a.auditLog, "audit-log", "", "append one JSON line per write sent (default: $XDG_STATE_HOME/locktable/audit.log)")
	pf.StringVar(&a.logFile, "log-file", "", "append SDK and app logs to this file (default: discarded)")
	root.Flags().IntVar(&a.follow, "follow", 0, "in the terminal UI, when the table has no stream to follow, read the rows on screen again every this many seconds, within --max-rcu; 0 for only when r is pressed")
	a.uiMemory = byteSize(defaultUIMemory)
	root.Flags().Var(&a.uiMemory, "max-memory", "the terminal UI's memory budget (e.g. 96MB, 1GiB): it holds a window of accounts and keeps the rest on disk; its check spills past a share of it")
	root.Flags().StringVar(&a.accountsIndex, "accounts-index", "", "list accounts through this GSI: one keyed by the sort key attribute is queried for --account-sk; any other is read as a sparse index of accounts")
	pf.IntVar(&a.segments, "segments", dynamo.DefaultSegments, "parallel scan segments (the demo backend always uses 1)")
	pf.IntVar(&a.pageSize, "page-size", 0, "scan page size (Limit); 0 for DynamoDB's 1 MB pages")
	pf.Float64Var(&a.maxRCU, "max-rcu", 0, "pace reads to at most this many read capacity units per second, by the capacity DynamoDB reports; 0 for no budget")
	pf.Float64Var(&a.maxWCU, "max-wcu", 0, "pace writes (repair, the TUI's bulk fixes) to at most this many write capacity units per second, 2 for each item a transaction writes; 0 for no budget")
	a.schemaFlags.register(pf)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	root.AddGroup(commandGroups...)
	root.AddCommand(a.checkCommand(), a.watchCommand(), a.findCommand(), a.initCommand(), a.seedCommand())
	root.AddCommand(a.writeCommands()...)
	root.AddCommand(a.raceCommand())
	root.AddCommand(a.undoCommand())
	root.AddCommand(a.demoCommand())
	root.AddCommand(a.targetCommand(), a.configCommand(), a.versionCommand(build), a.sqlCommand())
	a.completions(root)
	setHelp(root)
	return root
}

func (a *app) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}

// schema parses the schema flags; errors are usage errors.
func (a *app) schema() (model.Schema, error) {
	s, err := a.schemaFlags.schema(a.cmd.PersistentFlags())
	if err != nil {
		var fe *flagError
		if errors.As(err, &fe) {
			err = fmt.Errorf("%w%s", err, a.from(fe.flag))
		}
		return s, &exitError{code: ExitError, err: err}
	}
	if a.segments < 1 || a.segments > dynamo.MaxSegments {
		return s, usageErr("--segments %d%s: DynamoDB takes 1 to %d", a.segments, a.from("segments"), dynamo.MaxSegments)
	}
	if a.follow < 0 {
		return s, usageErr("--follow %d%s: want 0 (no polling) or a number of seconds", a.follow, a.from("follow"))
	}
	if a.maxRCU < 0 || math.IsNaN(a.maxRCU) || math.IsInf(a.maxRCU, 0) {
		return s, usageErr("--max-rcu %v%s: want 0 (no budget) or a positive number of read capacity units per second", a.maxRCU, a.from("max-rcu"))
	}
	if a.maxWCU < 0 || math.IsNaN(a.maxWCU) || math.IsInf(a.maxWCU, 0) {
		return s, usageErr("--max-wcu %v%s: want 0 (no budget) or a positive number of write capacity units per second", a.maxWCU, a.from("max-wcu"))
	}
	if a.pageSize < 0 || a.pageSize > math.MaxInt32 {
		return s, usageErr("--page-size %d%s: want 0 (DynamoDB's 1 MB pages) or 1 to %d", a.pageSize, a.from("page-size"), math.MaxInt32)
	}
	a.lastSchema = s
	return s, nil
}

// tableGiven reports whether the table was named: --table, or a target or
// the config file's defaults. The demo's is always given.
func (a *app) tableGiven() bool {
	return a.demo || a.cmd.PersistentFlags().Changed("table") || a.from("table") != ""
}

// onlyTable is the endpoint's only table, for a command not told which,
// or, of several, one named in also; otherwise it asks for --table.
func (a *app) onlyTable(ctx context.Context, store *dynamo.Store, also ...string) (string, error) {
	names, err := store.Tables(ctx)
	if err != nil {
		return "", err
	}
	if i := slices.IndexFunc(names, func(n string) bool { return slices.Contains(also, n) }); len(names) > 1 && i >= 0 {
		return names[i], nil
	}
	if len(names) != 1 {
		return "", usageErr("which table? pass --table (tables at %s: %s)", store.Endpoint, orNone(names))
	}
	return names[0], nil
}

// logWriter opens --log-file, or discards. The standard logger goes there
// too, so that nothing writes to the terminal behind the app's back. What
// reaches the file is redacted: the SDK logs errors that quote credentials.
func (a *app) logWriter() (io.Writer, error) {
	if a.logFile == "" {
		log.SetOutput(io.Discard)
		return io.Discard, nil
	}
	f, err := os.OpenFile(a.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, usageErr("--log-file%s: %v", a.from("log-file"), err)
	}
	a.closers = append(a.closers, func() { f.Close() })
	w := redact.Writer(f)
	log.SetOutput(w)
	return w, nil
}

// backend builds the store for the schema without checking the tables.
// With --demo it first starts the embedded backend and seeds it.
func (a *app) backend(ctx context.Context, s model.Schema) (*dynamo.Store, error) {
	logw, err := a.logWriter()
	if err != nil {
		return nil, err
	}
	opts := dynamo.ClientOptions{EndpointURL: a.endpointURL, Region: a.region, Profile: a.profile, Log: logw}
	var backend *demo.Server
	if a.demo {
		if backend, err = demo.Start(); err != nil {
			return nil, err
		}
		a.closers = append(a.closers, func() { backend.Close() })
		opts = dynamo.ClientOptions{EndpointURL: backend.URL, Region: "us-east-1", Log: logw, Demo: true}
		if s, err = a.demoPreset(s); err != nil {
			return nil, err
		}
		if !s.TTLGiven {
			s = demoTTL(s)
		}
	}
	conn, err := dynamo.Connect(ctx, opts)
	if err != nil {
		return nil, err
	}
	startuptrace.Mark("config")
	a.conn = conn
	store := dynamo.NewStore(conn.DynamoDB(), conn.Endpoint(), s, a.clock)
	startuptrace.Mark("client")
	if s.Preset != "" {
		// A preset's table is named by the application, seldom
		// "accounts": when --table is not given, the endpoint's only
		// table, or the default one if it is there.
		if !a.tableGiven() {
			if store.Schema.Table, err = a.onlyTable(ctx, store, s.Table); err != nil {
				return nil, err
			}
		}
		if err := a.createPresetTable(ctx, store); err != nil {
			return nil, err
		}
		notes, err := store.ResolvePreset(ctx)
		a.presetNotes = notes
		if err != nil {
			err = asFlagError(err)
			var fe *flagError
			if errors.As(err, &fe) {
				return nil, &exitError{code: ExitError, err: fmt.Errorf("%w%s", err, a.from(fe.flag))}
			}
			return nil, err
		}
		a.lastSchema = store.Schema
	}
	store.Segments = a.segments
	store.PageSize = int32(a.pageSize)
	// Every check is bounded, the TUI's and repair's too; check
	// --max-memory sets another budget.
	store.MaxMemory = defaultMaxMemory
	store.SetMaxRCU(a.maxRCU)
	if backend != nil {
		store.SetWritable(true)
		if _, err := seed.Run(ctx, store, seed.Options{Accounts: DemoAccounts, Anomalies: true, Showcase: true}); err != nil {
			return nil, fmt.Errorf("seed the demo table: %w", err)
		}
	}
	// After the demo's seeding: the budget is for the writes asked of us.
	store.SetMaxWCU(a.maxWCU)
	store.SetWritable(a.mayWrite(store.Endpoint) == nil)
	return store, nil
}

// createPresetTable creates a missing electrodb preset's table for seed,
// where writes are allowed (otherwise seed is refused as any write is).
func (a *app) createPresetTable(ctx context.Context, store *dynamo.Store) error {
	if !a.seedPresetTable || a.mayWrite(store.Endpoint) != nil {
		return nil
	}
	store.SetWritable(true)
	defer store.SetWritable(false)
	created, err := store.EnsurePresetTable(ctx)
	if created {
		a.presetCreated = append(a.presetCreated, store.Schema.Table)
	}
	return err
}

// The demo's ElectroDB table, when --table does not name another: the
// service of the agents (ElectroDB's documentation's), unique on
// email unless --unique says otherwise.
const (
	DemoElectroTable  = "mi6"
	demoElectroUnique = "email"
)

// demoPreset is the schema the demo seeds for a preset: an ElectroDB
// table (created, then written by seed as ElectroDB writes it) whose
// constraint entity is in the table's service unless --constraint-entity
// says otherwise. The demo writes no OneTable or TypeDORM table: those
// presets are refused in words, naming what it does hold.
func (a *app) demoPreset(s model.Schema) (model.Schema, error) {
	if s.Preset == "" {
		return s, nil
	}
	if lib, _, _ := model.ParsePreset(s.Preset); lib != model.LibElectroDB {
		return s, usageErr("--demo --preset %s: the demo holds the plain layouts and an ElectroDB table (--preset electrodb:ENTITY); to see a %s table, point locktable at one its library wrote (docs/layouts.md: Tables written by OneTable, TypeDORM or ElectroDB)", s.Preset, lib)
	}
	if !a.cmd.PersistentFlags().Changed("table") && a.from("table") == "" {
		s.Table = DemoElectroTable
	}
	if s.ConstraintEntity.Service == "" {
		s.ConstraintEntity.Service = s.Table
	}
	if len(s.Constraints) == 0 {
		// Keyed, with the flags' casing, by ResolvePreset: the table
		// has no constraint item yet.
		s.Constraints = []model.Constraint{{Attr: demoElectroUnique}}
	}
	a.seedPresetTable = true
	return s, nil
}

// demoTTL gives the demo's tables the TTL attribute ttl, which the
// embedded backend cannot enable (it has no TTL operations), so that the
// demo shows reservations, expired and expiring locks.
func demoTTL(s model.Schema) model.Schema {
	s.Constraints = slices.Clone(s.Constraints)
	for _, table := range s.Tables() {
		_ = s.SetTTLAttr(table, DemoTTLAttr) // one of the schema's tables
	}
	s.TTLGiven = true
	return s
}

// DemoTTLAttr is the TTL attribute of the demo's tables.
const DemoTTLAttr = "ttl"

// DemoAccounts is the number of healthy accounts in the demo table.
const DemoAccounts = 100

// open is backend followed by the table check every read starts with.
func (a *app) open(ctx context.Context, s model.Schema) (*dynamo.Store, error) {
	store, err := a.backend(ctx, s)
	if err != nil {
		return nil, err
	}
	return store, store.Verify(ctx)
}

// mayWrite refuses a write that the flags do not allow: never under
// --read-only; beyond loopback and the demo only with --write.
func (a *app) mayWrite(ep backend.Endpoint) error {
	switch {
	case a.readOnly:
		return usageErr("refusing to write: --read-only is set%s", a.from("read-only"))
	case ep.Demo, ep.Loopback, a.write:
		return nil
	}
	return usageErr("refusing to write to %s without --write (writes are allowed by default only on a loopback endpoint)", ep)
}
