package export

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locktable/locktable/model"
)

// Found is what one --export named: the exports at a location, and the
// table they are for when given (TABLE=LOCATION), else "" (matched by the
// table name each export's ARN holds).
type Found struct {
	Location string
	Table    string
	Exports  []*Export
}

// Match picks one export for each table of s. Exports of tables the
// schema does not touch are passed over (a prefix may hold others); two
// exports of one table, or none, are errors that say how to choose.
func Match(s *model.Schema, found []Found) (map[string]*Export, error) {
	tables := s.Tables()
	picked := map[string]*Export{}
	var others []string
	take := func(table string, e *Export) error {
		if prev, ok := picked[table]; ok {
			return fmt.Errorf("two exports of table %s: %s (taken %s) and %s (taken %s); name one with --export %s=%s",
				table, prev.Location(), stamp(prev.Summary.ExportTime), e.Location(), stamp(e.Summary.ExportTime), table, e.Location())
		}
		picked[table] = e
		return nil
	}
	for _, f := range found {
		if f.Table != "" {
			if len(f.Exports) > 1 {
				var ids []string
				for _, e := range f.Exports {
					ids = append(ids, e.ID+" ("+e.Table()+", "+stamp(e.Summary.ExportTime)+")")
				}
				return nil, fmt.Errorf("--export %s=%s holds %d exports, %s: name the directory of one (%s/%s/ID)",
					f.Table, f.Location, len(f.Exports), strings.Join(ids, ", "), f.Location, ExportsDir)
			}
			if err := take(f.Table, f.Exports[0]); err != nil {
				return nil, err
			}
			continue
		}
		for _, e := range f.Exports {
			if !slices.Contains(tables, e.Table()) {
				others = append(others, e.Table())
				continue
			}
			if err := take(e.Table(), e); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range tables {
		if picked[t] == nil {
			msg := fmt.Sprintf("no export of table %s among --export", t)
			if len(others) > 0 {
				slices.Sort(others)
				msg += fmt.Sprintf(" (found exports of %s; --export %s=LOCATION reads one as %s)", strings.Join(slices.Compact(others), ", "), t, t)
			}
			return nil, fmt.Errorf("%s", msg)
		}
	}
	return picked, nil
}

// stamp renders an export time as the summary does (RFC 3339, UTC).
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Census reads the export of every table of s (exports, as Match picked
// them) into one census, exactly as a scan of the tables fills it.
// progress, if not nil, is called with the items read so far and the
// exports' total, never concurrently. Past maxMemory bytes (0: no limit)
// the census spills to disk (model.Census.LimitMemory): the caller closes
// it. TTLs are judged at now (epoch seconds).
func Census(ctx context.Context, s *model.Schema, exports map[string]*Export, now int64, maxMemory int64, progress func(read, total int64)) (*model.Census, error) {
	census := model.NewCensus(s, now)
	census.LimitMemory(maxMemory)
	var total, read int64
	for _, t := range s.Tables() {
		total += exports[t].Summary.ItemCount
	}
	for _, t := range s.Tables() {
		err := exports[t].Items(ctx, s.ReadNames(t), func(it model.Item) error {
			census.Add(t, it)
			if err := census.Err(); err != nil {
				return err
			}
			read++
			if progress != nil && read%4096 == 0 {
				progress(read, total)
			}
			return nil
		})
		if err != nil {
			census.Close()
			return nil, err
		}
	}
	if progress != nil {
		progress(read, total)
	}
	return census, nil
}

// AsOf returns the time the exports show the tables at: the export time
// they share, or, when they were taken at different times, the earliest
// and a note that says what that means.
func AsOf(exports map[string]*Export) (time.Time, string) {
	var earliest time.Time
	var times []string
	same := true
	for _, table := range sortedKeys(exports) {
		t := exports[table].Summary.ExportTime
		if !earliest.IsZero() && !t.Equal(earliest) {
			same = false
		}
		if earliest.IsZero() || t.Before(earliest) {
			earliest = t
		}
		times = append(times, table+" "+stamp(t))
	}
	if same {
		return earliest, ""
	}
	return earliest, fmt.Sprintf("the exports were taken at different times (%s): a write between them can show as a problem; export every table with the same --export-time, or confirm with --confirm",
		strings.Join(times, ", "))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
