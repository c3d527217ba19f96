package dynamo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// Audit events: an intent is recorded, and synced, before a request is
// sent; an outcome after. A write refused before any request is one
// refused line. A crash between the two leaves the intent, so every
// commit has a line that names its keys and token.
const (
	EventIntent  = "intent"
	EventOutcome = "outcome"
	EventRefused = "refused"
)

// AuditEntry is one line of the audit log: keys, never attribute values
// beyond keys.
type AuditEntry struct {
	Time      time.Time     `json:"time"`
	Event     string        `json:"event"`
	Operation string        `json:"operation"`
	Table     string        `json:"table"`
	Keys      []string      `json:"keys"`
	Token     string        `json:"token,omitempty"`
	Outcome   model.Outcome `json:"outcome,omitempty"`
	Codes     []string      `json:"cancellation_codes,omitempty"`
	Reason    string        `json:"reason,omitempty"`
}

// AuditLog appends JSON lines to a writer, syncing each one when the
// writer is a file. It is safe for concurrent use.
type AuditLog struct {
	mu    sync.Mutex
	w     io.Writer
	clock clock.Clock // stamps the entries
}

// NewAuditLog returns an audit log writing to w, its entries stamped at
// the time clk tells.
func NewAuditLog(w io.Writer, clk clock.Clock) *AuditLog { return &AuditLog{w: w, clock: clk} }

// OpenAuditLog opens path for appending, creating it 0600 (its directory
// 0700 when created). An existing regular file with a looser mode is
// tightened to 0600: the log names accounts.
func OpenAuditLog(path string, clk clock.Clock) (*AuditLog, *os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("audit log %s is readable by others and cannot be tightened: %w", path, err)
		}
	}
	return NewAuditLog(f, clk), f, nil
}

// Record appends one entry, escaped like check --json output (control,
// format, separator, bidi and tag characters as \u escapes: a line reader
// can never split one record), and syncs it to disk.
func (l *AuditLog) Record(e AuditEntry) error {
	if e.Time.IsZero() {
		e.Time = l.clock.Now().UTC()
	}
	if e.Keys == nil {
		e.Keys = []string{}
	}
	return l.appendLine(e)
}

// appendLine appends v as one escaped JSON line and syncs it (see Record).
func (l *AuditLog) appendLine(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	line := model.EscapeJSON(buf.String())
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := io.WriteString(l.w, line); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if f, ok := l.w.(*os.File); ok {
		if err := f.Sync(); err != nil && !unsyncable(f, err) {
			return fmt.Errorf("audit log: sync: %w", err)
		}
	}
	return nil
}

// unsyncable reports whether err is a device's way of saying it has
// nothing to sync (a terminal, a pipe), which is not a lost record.
func unsyncable(f *os.File, err error) bool {
	fi, serr := f.Stat()
	if serr != nil || fi.Mode().IsRegular() {
		return false
	}
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, fs.ErrInvalid)
}

// ErrAudit marks a write not sent because its intent could not be recorded.
var ErrAudit = errors.New("the audit log cannot record the write, so nothing was sent")
