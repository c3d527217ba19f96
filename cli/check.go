package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/cli/flagname"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

func (a *app) checkCommand() *cobra.Command {
	f := checkFlags{maxMemory: byteSize(defaultMaxMemory)}
	cmd := &cobra.Command{
		Use:   "check [--merge FILE...]",
		Short: "Scan the table and report every integrity problem (exit 0 none, 1 problems, 2 error)",
		Example: `  locktable check
  locktable check --target prod --json | jq '.problems[] | select(.kind == "missing_lock")'
  locktable check --endpoint-url http://localhost:8000 --table accounts --segments 8
  locktable check --layout tables --table devices --unique mac_address=@unique_mac_addresses/MacAddress

  # hold memory near 256 MB whatever the table's size: past it the census
  # spills to $TMPDIR and is reconciled from there, with the same result
  locktable check --max-memory 256MB

  # a sharded check: each process scans some of the segments ...
  locktable check --segments 8 --segment-range 0-3 --partial a.part.gz
  locktable check --segments 8 --segment-range 4-7 --partial b.part.gz
  # ... and one merges the parts, confirms and reports as one check would
  locktable check --merge a.part.gz b.part.gz

  # a DynamoDB export to S3 (no read capacity), as of its export time
  locktable check --export s3://bucket/exports --json
  locktable check --export ./exports --confirm   # then confirmed against the live table`,
		GroupID: "read",
		Args: func(cmd *cobra.Command, args []string) error {
			if !f.merge && len(args) > 0 {
				return usageErr("check takes no arguments, except the parts with --merge")
			}
			if f.merge && len(args) == 0 {
				return usageErr("--merge: name the parts (FILE...)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCheck(cmd.Context(), f, args)
		},
	}
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the report as one JSON object")
	cmd.Flags().StringVar(&f.segmentRange, "segment-range", "", "A-B: scan only segments A to B of --segments (a sharded check; with --partial)")
	cmd.Flags().StringVar(&f.partial, "partial", "", "write this process's census of --segment-range to FILE (gzipped; check --merge reads it) instead of reporting")
	cmd.Flags().BoolVar(&f.merge, "merge", false, "merge the parts (FILE...) of a sharded check, confirm and report as one check")
	cmd.Flags().Var(&f.maxMemory, "max-memory", "memory budget (e.g. 256MB, 2GiB): past it the census spills to a temporary directory and is reconciled "+
		"partition by partition, with the same result")
	f.fromExport.register(cmd.Flags())
	return cmd
}

// checkFlags are check's own flags.
type checkFlags struct {
	asJSON       bool
	segmentRange string // with partial: this process's segments of a sharded check
	partial      string
	merge        bool // the arguments are parts to merge
	fromExport   exportFlags
	maxMemory    byteSize
}

// validate refuses flags that do not go together.
func (f checkFlags) validate() error {
	switch {
	case (f.segmentRange == "") != (f.partial == ""):
		return usageErr("--segment-range and --partial go together: each process of a sharded check writes its part")
	case f.merge && f.partial != "":
		return usageErr("--merge and --partial: a process either writes a part or merges them")
	case f.fromExport.used() && (f.merge || f.partial != ""):
		return usageErr("--export reads an export, not parts of a sharded check (--merge, --partial)")
	}
	return nil
}

// runCheck is check: a census of the table (or of an export, or merged
// from the parts of a sharded check), confirmed and reported; or, with
// --partial, one process's census written to its part.
func (a *app) runCheck(ctx context.Context, f checkFlags, parts []string) error {
	s, err := a.schema()
	if err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	if f.fromExport.used() {
		return a.checkExport(ctx, s, f.fromExport, int64(f.maxMemory), f.asJSON)
	}
	store, err := a.open(ctx, s)
	if err != nil {
		return err
	}
	store.MaxMemory = int64(f.maxMemory)
	defer holdMemory(checkMemoryLimit, int64(f.maxMemory))()
	p := newProgress(a.stderr)
	if f.partial != "" {
		return a.checkPart(ctx, store, f, p)
	}
	var census func() (*model.Census, error) // nil: the scan's
	if f.merge {
		census = func() (*model.Census, error) { return readParts(&store.Schema, parts, int64(f.maxMemory)) }
	}
	report, spilled, err := store.Checker.CheckFrom(ctx, census, progressLine(p))
	p.done()
	if err != nil {
		return err
	}
	a.noteSpill(spilled, int64(f.maxMemory))
	return a.printCheck(report, &store.Schema, f.asJSON)
}

// checkPart is check --partial: the census of this process's segments,
// written to its part for check --merge to confirm, not confirmed here.
func (a *app) checkPart(ctx context.Context, store *dynamo.Store, f checkFlags, p *progress) error {
	from, to, err := parseRange(f.segmentRange, store.Segments)
	if err != nil {
		return err
	}
	census, err := store.Checker.Census(ctx, from, to, progressLine(p))
	// Before the error is looked at: a census cut short by an error or an
	// interrupt is returned too, and may hold spill files (Close is nil-safe).
	defer func() { _ = census.Close() }()
	p.done()
	if err != nil {
		return err
	}
	if err := writePart(f.partial, census, store.Segments, from, to); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "wrote segments %d-%d of %d to %s: %d items\n", from, to-1, store.Segments, f.partial, census.Scanned)
	return nil
}

// printCheck prints a check's report, as JSON or for a person, after any
// hint that the schema may not fit the table, and exits 1 when it holds
// problems.
func (a *app) printCheck(report model.Report, s *model.Schema, asJSON bool) error {
	if hint := report.SchemaHint(s, flagname.Say); hint != "" {
		fmt.Fprintln(a.stderr, "locktable: hint: "+hint)
	}
	var err error
	if asJSON {
		err = writeJSON(a.stdout, report)
	} else {
		err = writeReport(a.stdout, report)
	}
	if err != nil {
		return err
	}
	if len(report.Problems) > 0 {
		return &exitError{code: ExitProblems}
	}
	return nil
}

// defaultMaxMemory is --max-memory's default.
const defaultMaxMemory = 512 << 20

// noteSpill tells, on stderr, that the census outgrew the budget and what
// that cost, so that a slow check explains itself.
func (a *app) noteSpill(st model.SpillStats, budget int64) {
	if st.Spills > 0 {
		fmt.Fprintf(a.stderr, "locktable: note: the census outgrew --max-memory %s and was reconciled from disk (%.1f MiB written, %d partitions)\n",
			formatSize(budget), float64(st.Bytes)/(1<<20), st.Partitions)
	}
}

// parseRange reads --segment-range A-B into [A, B+1).
func parseRange(r string, segments int) (from, to int, err error) {
	a, b, ok := strings.Cut(r, "-")
	from, errA := strconv.Atoi(a)
	last, errB := strconv.Atoi(b)
	if !ok || errA != nil || errB != nil || from < 0 || last < from || last >= segments {
		return 0, 0, usageErr("--segment-range %q: want A-B with 0 <= A <= B < --segments (%d)", r, segments)
	}
	return from, last + 1, nil
}

// writePart writes census as segments [from, to) of segments to a
// gzipped part at path, whole or not at all (a temporary file renamed).
func writePart(path string, census *model.Census, segments, from, to int) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".locktable-part-*")
	if err != nil {
		return usageErr("--partial: %v", err)
	}
	defer os.Remove(tmp.Name())
	zw := gzip.NewWriter(tmp)
	if err := census.WritePart(zw, segments, from, to); err != nil {
		tmp.Close()
		return fmt.Errorf("--partial: %w", err)
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return fmt.Errorf("--partial: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--partial: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}

// readParts reads the parts of a sharded check and merges them, a record
// at a time, into a census of budget bytes (see model.Merger).
func readParts(s *model.Schema, paths []string, budget int64) (*model.Census, error) {
	m := model.NewMerger(s, budget)
	for _, path := range paths {
		if err := readPart(m, path); err != nil {
			return nil, err
		}
	}
	c, err := m.Census()
	if err != nil {
		return nil, usageErr("--merge: %v", err)
	}
	return c, nil
}

// readPart merges the part at path.
func readPart(m *model.Merger, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return usageErr("--merge: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return usageErr("--merge %s: not a census part: %v", path, err)
	}
	if err := m.ReadPart(zr); err != nil {
		return usageErr("--merge %s: %s", path, partError(err))
	}
	return nil
}

// partError says why a part was refused; one read with another schema
// names the flags that differ.
func partError(err error) string {
	var pe *model.PartSchemaError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	flags := make([]string, len(pe.Fields))
	for i, f := range pe.Fields {
		flags[i] = flagname.Say(f)
	}
	return fmt.Sprintf("part %d was read with other schema flags: %s differ", pe.Part, strings.Join(flags, ", "))
}

// progressLine returns a progress callback that redraws one stderr line at
// most ten times a second, and clears it when the check is done.
func progressLine(p *progress) func(model.CheckProgress) {
	return func(c model.CheckProgress) {
		if c.Phase == model.PhaseDone {
			p.done()
			return
		}
		p.update(string(c.Phase), c.Scanned, c.Approx, "items scanned")
	}
}

// writeJSON prints v as one line of JSON. Values come from the table, so
// characters that could reorder or hide text on a terminal are written as
// \u escapes: the same JSON value, safe to cat.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, model.EscapeJSON(buf.String()))
	return err
}

// writeReport prints the human report: a summary, each kind with its count,
// then one line per problem.
func writeReport(w io.Writer, r model.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "table %s: %d items scanned, %d accounts, %d locks", model.Printable(r.Table), r.ScannedItems, r.Accounts, r.Locks)
	if r.Now != 0 {
		fmt.Fprintf(&b, " (%d reserved: signups in progress; TTLs judged at %s)", r.Reservations, time.Unix(r.Now, 0).UTC().Format(time.RFC3339))
	}
	if r.ConsumedRCU > 0 {
		fmt.Fprintf(&b, ", %s read capacity units consumed", model.CapacityText(r.ConsumedRCU))
	}
	b.WriteString("\n")
	counts := r.Counts()
	for _, k := range model.ProblemKinds {
		fmt.Fprintf(&b, "%-16s %d\n", k, counts[k])
	}
	if len(r.Problems) == 0 {
		b.WriteString("no problems\n")
	} else {
		b.WriteString("\n")
	}
	for _, rk := range r.Rekeyed {
		b.WriteString(rekeyedLine(rk, r.Problems) + "\n")
	}
	for _, p := range r.Problems {
		b.WriteString(problemLine(p))
		if why := p.TTLNote(r.Now); why != "" {
			b.WriteString("  " + why)
		}
		b.WriteString("\n")
	}
	for _, warning := range r.Warnings {
		b.WriteString("warning: " + model.Printable(warning) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// problemLine renders one problem on one line, every table-sourced string
// made printable.
func problemLine(p model.Problem) string {
	parts := []string{fmt.Sprintf("%-16s %s %s", p.Kind, p.Constraint, quote(p.Value))}
	if p.Lock != nil {
		lock := keyPairs(p.Lock)
		if p.LockTable != "" {
			lock = p.LockTable + ":" + lock
		}
		parts = append(parts, "lock "+quote(lock))
	}
	if p.Owner != "" {
		parts = append(parts, "owner "+quote(p.Owner))
	}
	if len(p.Accounts) > 0 {
		held := make([]string, len(p.Accounts))
		for i, id := range p.Accounts {
			held[i] = quote(id)
		}
		parts = append(parts, "accounts "+strings.Join(held, ","))
	}
	return strings.Join(parts, "  ")
}

// rekeyedLine says why an orphan lock is a lock locktable's casefold
// wrote before 2026-12, and what repair does with it and with the lock
// the rule now names, so that neither reads as a problem of its own.
func rekeyedLine(rk model.Rekeyed, problems []model.Problem) string {
	lock := func(key map[string]string) string {
		if rk.LockTable != "" {
			return quote(rk.LockTable + ":" + keyPairs(key))
		}
		return quote(keyPairs(key))
	}
	var missing *model.Problem
	for i, p := range problems {
		if p.Kind == model.MissingLock && p.Constraint == rk.Constraint && p.Value == rk.New {
			missing = &problems[i]
		}
	}
	what := "repair deletes the old key; the lock under the new one is there (the orphan_lock below is this change)"
	if missing != nil {
		what = "repair moves the lock (the orphan_lock and missing_lock below are this one change)"
		if why := missing.LeftToAPerson(); why != "" {
			what = "repair deletes the old key and leaves the new one to a person: " + why + " (the orphan_lock and missing_lock below are this one change)"
		}
	}
	return fmt.Sprintf("rekeyed          %s lock %s was keyed by locktable's casefold before 2026-12 (folding left %s); "+
		"the rule now keys %s's %s %s as %s: %s",
		model.Printable(rk.Constraint), lock(rk.OldLock), model.Printable(rk.Composed()),
		quote(rk.Account), model.Printable(rk.Constraint), quote(rk.Value), lock(rk.NewLock), what)
}

// keyPairs is a key as its sorted NAME=VALUE pairs, joined by commas.
func keyPairs(key map[string]string) string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(key)) {
		pairs = append(pairs, k+"="+key[k])
	}
	return strings.Join(pairs, ",")
}

// quote makes a table value printable, quoted (model.Quote) when it is
// empty or holds a space or a quote.
func quote(s string) string { return model.QuoteWord(s) }
