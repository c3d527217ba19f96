package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/export"
	"github.com/locktable/locktable/model"
)

// exportFlags are check's flags for reading a DynamoDB export instead of
// scanning the tables.
type exportFlags struct {
	locations  []string
	confirm    bool
	s3Endpoint string
	now        nowFlag
}

func (f *exportFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.locations, "export", nil, "read a DynamoDB export (DIR or s3://BUCKET/PREFIX, DYNAMODB_JSON) instead of scanning: no read capacity; "+
		"each table's export is found by name, or given as TABLE=LOCATION (repeat)")
	fs.BoolVar(&f.confirm, "confirm", false, "with --export: confirm the export's problems against the live table with consistent reads")
	fs.StringVar(&f.s3Endpoint, "s3-endpoint-url", "", "S3 endpoint for s3:// exports (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then AWS)")
	fs.Var(&f.now, "now", "with --export: judge TTLs at this time (epoch seconds or RFC 3339; default: the export's time, or with --confirm the check's start)")
}

// used reports whether the flags ask for an export check.
func (f *exportFlags) used() bool { return len(f.locations) > 0 || f.confirm || f.now.set }

// judgedAt is the time an export check judges TTLs at (now is the
// process's), and what it is:
// --now; with --confirm the check's start, since the problems are
// confirmed against the live table as it is now (a lock reserved at the
// export time may have expired since); otherwise the export's time, as of
// which the items are what they are (a later "now" would call every
// reservation the export holds expired, though nobody saw it expire).
func (f *exportFlags) judgedAt(asOf, now time.Time) (int64, string) {
	switch {
	case f.now.set:
		return f.now.at, "--now"
	case f.confirm:
		return model.Epoch(now), "the check's start"
	}
	return model.Epoch(asOf), "the export's time"
}

// exportReport is a check report read from an export: as of its time.
type exportReport struct {
	model.Report
	AsOf string `json:"as_of"`
}

// checkExport is check --export: the census of the tables' exports,
// reported as of the export time, or confirmed against the live tables
// with --confirm.
func (a *app) checkExport(ctx context.Context, s model.Schema, f exportFlags, maxMemory int64, asJSON bool) error {
	if len(f.locations) == 0 && f.now.set {
		return usageErr("--now goes with --export: a check of the live table judges TTLs at its start")
	}
	if len(f.locations) == 0 {
		return usageErr("--confirm goes with --export: it confirms an export's problems against the live table")
	}
	var store *dynamo.Store
	if f.confirm { // before reading the export: a table we cannot confirm against fails fast
		var err error
		if store, err = a.open(ctx, s); err != nil {
			return err
		}
		s = store.Schema // a preset's, as read from the live table
	} else if err := offlinePreset(&s, "--export", " (or add --confirm, which reads them from the live table)"); err != nil {
		return err
	}
	exports, err := a.findExports(ctx, &s, f)
	if err != nil {
		return err
	}
	asOf, note := export.AsOf(exports)
	if note != "" && !f.confirm {
		fmt.Fprintln(a.stderr, "locktable: note: "+note)
	}
	now, nowIs := f.judgedAt(asOf, a.clock.Now())
	p := newProgress(a.stderr)
	defer holdMemory(checkMemoryLimit, maxMemory)()
	census, err := export.Census(ctx, &s, exports, now, maxMemory, func(read, total int64) { p.update("export", read, total, "items read") })
	p.done()
	if err != nil {
		return err
	}
	defer census.Close()
	var report model.Report
	if f.confirm {
		report, err = store.Checker.Confirm(ctx, census, progressLine(p))
		p.done()
	} else {
		var ps []model.Problem
		ps, err = census.Reconcile()
		report = census.Report(ps)
	}
	if err != nil {
		return err
	}
	a.noteSpill(census, maxMemory)
	if hint := report.SchemaHint(&s); hint != "" {
		fmt.Fprintln(a.stderr, "locktable: hint: "+hint)
	}
	stamp := asOf.UTC().Format(time.RFC3339Nano)
	if asJSON {
		err = writeJSON(a.stdout, exportReport{Report: report, AsOf: stamp})
	} else {
		err = writeExportReport(a.stdout, &s, exports, stamp, f.confirm, nowIs, report)
	}
	if err != nil {
		return err
	}
	if len(report.Problems) > 0 {
		return &exitError{code: ExitProblems}
	}
	return nil
}

// offlinePreset refuses a preset's schema that still lacks what only the
// live table tells (its key names, the accounts' sort key, the unique
// attributes) where cmd reads nothing from DynamoDB, naming the flags
// that give it; or tells the way to read them.
func offlinePreset(s *model.Schema, cmd, or string) error {
	if missing := s.Unresolved(); missing != "" {
		return usageErr("%s reads nothing from DynamoDB, so --preset %s cannot read the table's key names, its accounts' sort key or its unique attributes: give %s%s",
			cmd, s.Preset, missing, or)
	}
	return nil
}

// writeExportReport prints which exports were read and as of when, then
// the report as check prints it.
func writeExportReport(w io.Writer, s *model.Schema, exports map[string]*export.Export, asOf string, confirmed bool, nowIs string, r model.Report) error {
	var b strings.Builder
	for _, t := range s.Tables() {
		e := exports[t]
		fmt.Fprintf(&b, "export of %s taken %s (%s)\n", model.Printable(t), e.Summary.ExportTime.UTC().Format(time.RFC3339Nano), model.Printable(e.Location()))
	}
	if confirmed {
		fmt.Fprintf(&b, "problems found as of %s, confirmed against the live table now\n", asOf)
	} else {
		fmt.Fprintf(&b, "problems as of %s, not confirmed against the live table (--confirm confirms them)\n", asOf)
	}
	if s.HasTTL() {
		fmt.Fprintf(&b, "TTLs judged at %s (%s)\n", nowIs, nowStamp(r.Now))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeReport(w, r)
}

// findExports reads the summaries at every --export and picks one export
// per table of the schema.
func (a *app) findExports(ctx context.Context, s *model.Schema, f exportFlags) (map[string]*export.Export, error) {
	var s3api export.S3API // built once, for the first s3:// location
	var found []export.Found
	for _, loc := range f.locations {
		table := ""
		// TABLE=LOCATION only when TABLE is one of the schema's tables: a
		// location may hold "=" (s3://b/dt=2024-03-01).
		if t, rest, ok := strings.Cut(loc, "="); ok && slices.Contains(s.Tables(), t) {
			table, loc = t, rest
		}
		bucket, dir, isS3, err := export.ParseLocation(loc)
		if err != nil {
			return nil, usageErr("--export %v", err)
		}
		var src export.Source = export.Dir{}
		if isS3 {
			if s3api == nil {
				logw, err := a.logWriter()
				if err != nil {
					return nil, err
				}
				opts := dynamo.ClientOptions{Region: a.region, Profile: a.profile, Log: logw}
				client, err := export.NewS3Client(ctx, opts, export.S3EndpointURL(f.s3Endpoint))
				if err != nil {
					return nil, err
				}
				s3api = client
			}
			src = export.S3{API: s3api, Bucket: bucket}
		}
		exports, err := export.Find(ctx, src, dir)
		if err != nil {
			return nil, usageErr("--export %s: %v", loc, err)
		}
		found = append(found, export.Found{Location: loc, Table: table, Exports: exports})
	}
	exports, err := export.Match(s, found)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return exports, nil
}
