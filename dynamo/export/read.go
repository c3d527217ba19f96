package export

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/model"
)

// Source is where exports are stored: a directory or an S3 bucket. Paths
// are slash-separated; a missing file is an error that is fs.ErrNotExist.
type Source interface {
	// List returns the names of the entries directly under dir, those of
	// directories (common prefixes) ending in "/".
	List(ctx context.Context, dir string) ([]string, error)
	Open(ctx context.Context, p string) (io.ReadCloser, error)
	// Name names p for messages: a path, or s3://bucket/key.
	Name(p string) string
}

// Export is one table's export, found by Find.
type Export struct {
	Summary Summary
	ID      string // the export id, the name of its directory
	src     Source
	dir     string
}

// Table returns the exported table's name.
func (e *Export) Table() string { return e.Summary.Table() }

// Location names the export's directory, as --export accepts it.
func (e *Export) Location() string { return e.src.Name(e.dir) }

// Find returns the exports at dir: the export whose directory dir is (it
// holds manifest-summary.json), or else every export under
// dir/AWSDynamoDB/, the prefix an export request names. Directories of
// exports still running or failed (no summary) are passed over.
func Find(ctx context.Context, src Source, dir string) ([]*Export, error) {
	dir = strings.TrimSuffix(dir, "/")
	e, err := load(ctx, src, dir)
	if err == nil {
		return []*Export{e}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	root := path.Join(dir, ExportsDir)
	entries, err := src.List(ctx, root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var found []*Export
	for _, name := range entries {
		if !strings.HasSuffix(name, "/") {
			continue
		}
		e, err := load(ctx, src, path.Join(root, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		}
		found = append(found, e)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no DynamoDB export at %s: neither %s nor %s/*/%s exists", src.Name(dir), SummaryFile, ExportsDir, SummaryFile)
	}
	return found, nil
}

// load reads the summary of the export in dir and refuses the exports
// this package cannot read.
func load(ctx context.Context, src Source, dir string) (*Export, error) {
	data, err := readAll(ctx, src, path.Join(dir, SummaryFile))
	if err != nil {
		return nil, err
	}
	e := &Export{ID: path.Base(dir), src: src, dir: dir}
	if err := json.Unmarshal(data, &e.Summary); err != nil {
		return nil, fmt.Errorf("%s: not an export summary: %w", src.Name(path.Join(dir, SummaryFile)), err)
	}
	switch s := e.Summary; {
	case s.OutputFormat != formatJSON:
		return nil, fmt.Errorf("export %s is in %s: only %s exports can be read (--export-format %s)", e.Location(), s.OutputFormat, formatJSON, formatJSON)
	case s.ExportType != "" && s.ExportType != fullExport:
		return nil, fmt.Errorf("export %s is an %s: only full exports hold every item", e.Location(), s.ExportType)
	case s.Table() == "":
		return nil, fmt.Errorf("export %s: no table in its tableArn %q", e.Location(), s.TableArn)
	}
	return e, nil
}

func readAll(ctx context.Context, src Source, p string) ([]byte, error) {
	r, err := src.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", src.Name(p), err)
	}
	return data, nil
}

// DataFiles reads the export's manifest-files.json.
func (e *Export) DataFiles(ctx context.Context) ([]DataFile, error) {
	p := path.Join(e.dir, FilesFile)
	data, err := readAll(ctx, e.src, p)
	if err != nil {
		return nil, err
	}
	var files []DataFile
	var total int64
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f DataFile
		if err := json.Unmarshal(line, &f); err != nil || f.DataFileS3Key == "" {
			return nil, fmt.Errorf("%s line %d: not a data file entry: %.200s", e.src.Name(p), i+1, line)
		}
		files = append(files, f)
		total += f.ItemCount
	}
	if total != e.Summary.ItemCount {
		return nil, fmt.Errorf("export %s: its data files hold %d items, its summary says %d: an incomplete copy?", e.Location(), total, e.Summary.ItemCount)
	}
	return files, nil
}

// dataPath maps a data file's S3 key to a path in the export's source. The
// key names the bucket and prefix the export was written to; an export
// copied elsewhere (a directory, another prefix) is read relative to its
// own directory, where the key has AWSDynamoDB/<id>/.
func (e *Export) dataPath(key string) (string, error) {
	marker := ExportsDir + "/" + e.ID + "/"
	i := strings.LastIndex(key, marker)
	if i < 0 {
		return "", fmt.Errorf("export %s: data file key %q is not under %s", e.Location(), key, marker)
	}
	return path.Join(e.dir, key[i+len(marker):]), nil
}

// maxLine bounds one line of a data file: an item is at most 400 KB, and
// its DynamoDB JSON (base64 binaries, escaped strings) a few times that.
const maxLine = 16 << 20

// Items reads every item of the export and hands each to visit, never
// concurrently. Data files are read in parallel, each streamed line by
// line, so memory does not grow with the export. keep, when not nil,
// names the attributes to decode; the others are skipped. visit must not
// keep the item: its map is reused. Every file's item count and MD5 are
// checked against the manifest.
func (e *Export) Items(ctx context.Context, keep []string, visit func(model.Item) error) error {
	files, err := e.DataFiles(ctx)
	if err != nil {
		return err
	}
	var want map[string]bool
	if keep != nil {
		want = map[string]bool{}
		for _, name := range keep {
			want[name] = true
		}
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, min(runtime.GOMAXPROCS(0), len(files))))
	for _, f := range files {
		g.Go(func() error {
			return e.readFile(gctx, f, want, func(it model.Item) error {
				mu.Lock()
				defer mu.Unlock()
				return visit(it)
			})
		})
	}
	return g.Wait()
}

// readFile streams one gzipped data file.
func (e *Export) readFile(ctx context.Context, f DataFile, want map[string]bool, visit func(model.Item) error) error {
	p, err := e.dataPath(f.DataFileS3Key)
	if err != nil {
		return err
	}
	name := e.src.Name(p)
	r, err := e.src.Open(ctx, p)
	if err != nil {
		return fmt.Errorf("export %s: %w", e.Location(), err)
	}
	defer r.Close()
	sum := md5.New()
	body := io.TeeReader(r, sum)
	var n int64
	zr, err := gzip.NewReader(body)
	switch {
	case errors.Is(err, io.EOF): // an empty partition may leave an empty file
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	default:
		if n, err = readLines(ctx, zr, name, want, visit); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, body); err != nil { // the rest, for the checksum
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if n != f.ItemCount {
		return fmt.Errorf("%s holds %d items, the manifest says %d: an incomplete copy?", name, n, f.ItemCount)
	}
	return checkMD5(name, sum, f.MD5Checksum)
}

func checkMD5(name string, sum hash.Hash, want string) error {
	if want == "" {
		return nil
	}
	if got := base64.StdEncoding.EncodeToString(sum.Sum(nil)); got != want {
		return fmt.Errorf("%s: MD5 %s, the manifest says %s: the file is damaged or incomplete", name, got, want)
	}
	return nil
}

// readLines decodes the {"Item":{...}} lines of one data file.
func readLines(ctx context.Context, r io.Reader, name string, want map[string]bool, visit func(model.Item) error) (int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	it := model.Item{}
	var n int64
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if n%1024 == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
		clear(it)
		if err := decodeItem(sc.Bytes(), want, it); err != nil {
			return n, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		n++
		if err := visit(it); err != nil {
			return n, err
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// decodeItem reads one line, {"Item":{...DynamoDB JSON...}}, into it,
// keeping only the attributes want names (all when nil).
func decodeItem(line []byte, want map[string]bool, it model.Item) error {
	var rec struct {
		Item map[string]json.RawMessage
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return fmt.Errorf("not a line of an export: %w", err)
	}
	if rec.Item == nil {
		return fmt.Errorf("no Item: %.200s", line)
	}
	for name, raw := range rec.Item {
		if want != nil && !want[name] {
			continue
		}
		var v model.Value
		if err := v.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("attribute %s: %w", model.Printable(name), err)
		}
		it[name] = v
	}
	return nil
}
