package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

func (a *app) initCommand() *cobra.Command {
	var (
		sample int32
		save   string
	)
	cmd := &cobra.Command{
		Use:   "init [--table T]",
		Short: "Read a table's keys and a sample of its items, and propose the schema flags (layout, prefixes, lock sort key, owner attribute)",
		Example: `  locktable init --endpoint-url http://localhost:8000 --table accounts
  locktable init --table devices           # a record table whose locks live in tables of their own`,
		GroupID: "setup",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sample < 1 || sample > 100_000 {
				return usageErr("--sample %d: want 1 to 100000", sample)
			}
			s, err := a.schema()
			if err != nil {
				return err
			}
			store, err := a.backend(cmd.Context(), s)
			if err != nil {
				return err
			}
			if s.Preset != "" {
				// The preset read the table: its schema is the proposal,
				// with the table's TTL attribute.
				proposed := store.Schema
				for _, n := range append(a.presetNotes, store.ProposeTTL(cmd.Context(), &proposed)...) {
					fmt.Fprintln(a.stderr, model.Printable(n))
				}
				return a.proposeTarget(proposed, save)
			}
			table := s.Table
			if !a.tableGiven() {
				if table, err = a.onlyTable(cmd.Context(), store); err != nil {
					return err
				}
			}
			proposed, notes, err := store.InferSchema(cmd.Context(), table, sample)
			if err == nil && proposed.Preset != "" {
				// A library's table: its preset reads the rest.
				if proposed, err = a.resolvePreset(cmd.Context(), store, proposed); err != nil {
					return err
				}
				notes = append(notes, a.presetNotes...)
			}
			if err == nil {
				notes = append(notes, store.ProposeTTL(cmd.Context(), &proposed)...)
			}
			for _, n := range notes {
				fmt.Fprintln(a.stderr, model.Printable(n))
			}
			if err != nil {
				return err
			}
			return a.proposeTarget(proposed, save)
		},
	}
	cmd.Flags().Int32Var(&sample, "sample", 1000, "items to read from each table (one Scan page)")
	cmd.Flags().StringVar(&save, "save", "", "save the proposal as target NAME in the config file (with the endpoint, region and profile given)")
	return cmd
}

// resolvePreset reads from the table what the preset init recognised
// (found: its table and preset) leaves to it, as --preset would; store
// takes the preset's schema.
func (a *app) resolvePreset(ctx context.Context, store *dynamo.Store, found model.Schema) (model.Schema, error) {
	s := model.DefaultSchema(model.LayoutSingle)
	if err := (model.Preset{Schema: &s}).Apply(found.Preset); err != nil {
		return s, err
	}
	s.Table = found.Table
	store.Schema = s
	notes, err := store.ResolvePreset(ctx)
	a.presetNotes = notes
	if err != nil {
		return s, asFlagError(err)
	}
	return store.Schema, nil
}

// proposeTarget prints a proposed schema as a target and, with --save,
// saves it in the config file.
func (a *app) proposeTarget(proposed model.Schema, save string) error {
	entries := a.targetEntries(&proposed)
	if err := writeTarget(a.stdout, proposed.Table, entries); err != nil || save == "" {
		return err
	}
	// The file the settings came from: choosing it again could find
	// another (or none), and AddTarget reads it afresh anyway.
	file := a.settings.File
	if err := config.AddTarget(file.Path, save, entries, a.spec()); err != nil {
		return &exitError{code: ExitError, err: err}
	}
	fmt.Fprintf(a.stderr, "saved target %s to %s: use it with --target %s, or make it the default with: locktable target use %s\n",
		model.Printable(save), model.Printable(file.Path), model.Printable(save), model.Printable(save))
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none (DynamoDB Local without -sharedDb keeps one database per access key and region)"
	}
	return strings.Join(names, ", ")
}

// targetEntries is a proposed schema as a config target: where (the
// endpoint, region and profile given), then every schema flag.
func (a *app) targetEntries(s *model.Schema) []config.Entry {
	var entries []config.Entry
	for _, f := range []struct{ key, v string }{{"endpoint-url", a.endpointURL}, {"region", a.region}, {"profile", a.profile}} {
		if f.v != "" {
			entries = append(entries, config.Entry{Key: f.key, Values: []string{f.v}})
		}
	}
	flags := SchemaFlags(s)
	index := map[string]int{}
	for i := 0; i+1 < len(flags); i += 2 {
		key := strings.TrimPrefix(flags[i], "--")
		if j, ok := index[key]; ok {
			entries[j].Values = append(entries[j].Values, flags[i+1])
			continue
		}
		index[key] = len(entries)
		entries = append(entries, config.Entry{Key: key, Values: []string{flags[i+1]}, List: key == "unique" || key == "normalize" || key == "lock-attr" || key == "ttl-attr"})
	}
	return entries
}

// writeTarget prints a proposed target, the entries --save would write,
// as YAML for the config file and as flags. Values are Go-quoted (control
// and format characters escaped), which YAML's double-quoted strings read
// the same.
func writeTarget(w io.Writer, name string, entries []config.Entry) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# a target for config.yaml (under targets:), or the flags below\n%s:\n", strconv.Quote(name))
	var shell []string
	for _, e := range entries {
		quoted := make([]string, len(e.Values))
		for i, v := range e.Values {
			quoted[i] = strconv.Quote(v)
			shell = append(shell, "--"+e.Key, shellQuote(model.Printable(v)))
		}
		if e.List {
			fmt.Fprintf(&b, "  %s: [%s]\n", e.Key, strings.Join(quoted, ", "))
		} else {
			fmt.Fprintf(&b, "  %s: %s\n", e.Key, quoted[0])
		}
	}
	fmt.Fprintf(&b, "\n# as flags:\n%s\n", strings.Join(shell, " "))
	_, err := io.WriteString(w, b.String())
	return err
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`#&|;<>()*?[]{}~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
