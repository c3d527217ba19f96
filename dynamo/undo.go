package dynamo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// The undo journal keeps what undoing a write needs, which the audit log
// may not hold: the values of the items the write changes. It is a file
// of its own beside the audit log (PATH.undo), kept like it: JSON lines,
// 0600 in a 0700 directory, every string escaped, and each record synced
// before the write is sent; a write whose record cannot be kept is not
// sent. A "before" line carries the items, keyed by the write's token; an
// "outcome" line follows once the outcome is known.
const (
	UndoBefore  = "before"
	UndoOutcome = "outcome"
)

// UndoEntry is one line of the undo journal.
type UndoEntry struct {
	Time  time.Time `json:"time"`
	Event string    `json:"event"`
	model.UndoRecord
	Outcome model.Outcome `json:"outcome,omitempty"`
}

// UndoJournal appends to the undo journal. It is safe for concurrent use.
type UndoJournal struct {
	Path string
	log  *AuditLog
}

// UndoPath is the undo journal kept beside the audit log at auditPath.
func UndoPath(auditPath string) string { return auditPath + ".undo" }

// OpenUndoJournal opens the journal at path for appending, created and
// tightened as the audit log is (see OpenAuditLog), its entries stamped
// at the time clk tells.
func OpenUndoJournal(path string, clk clock.Clock) (*UndoJournal, *os.File, error) {
	log, f, err := OpenAuditLog(path, clk)
	if err != nil {
		return nil, nil, fmt.Errorf("undo journal: %w", err)
	}
	return &UndoJournal{Path: path, log: log}, f, nil
}

// ErrUndoJournal marks a write not sent because its undo record could not
// be kept.
var ErrUndoJournal = errors.New("the undo journal cannot record the write, so nothing was sent")

// journal records, before tx is sent, every item it writes as a
// consistent read finds it and as tx would leave it: what undo needs.
func (s *Writer) journal(ctx context.Context, tx backend.Tx) error {
	if s.Undo == nil {
		return nil
	}
	var refs []model.KeyRef
	for _, a := range tx.Plan.Actions {
		if a.Kind != model.ActCheck {
			refs = append(refs, model.KeyRef{Table: a.Table, Key: a.Key})
		}
	}
	found := map[string]model.Item{}
	err := s.readConsistent(ctx, refs, func(table string, it model.Item) {
		found[keyID(table, s.Schema.KeyOf(table, it))] = it
	})
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted before sending: %w", context.Cause(ctx))
	case err != nil:
		return fmt.Errorf("%w: reading the items it changes: %v", ErrUndoJournal, err)
	}
	r := s.undoRecord(tx)
	r.Items = model.UndoItems(tx.Plan, func(table string, key map[string]string) model.Item { return found[keyID(table, key)] })
	if err := s.Undo.log.appendLine(UndoEntry{Time: s.Undo.log.clock.Now().UTC(), Event: UndoBefore, UndoRecord: r}); err != nil {
		return fmt.Errorf("%w: %v", ErrUndoJournal, err)
	}
	return nil
}

// journalOutcome records the outcome of a journaled write.
func (s *Writer) journalOutcome(tx backend.Tx, res model.Result) {
	if s.Undo == nil {
		return
	}
	r := s.undoRecord(tx)
	_ = s.Undo.log.appendLine(UndoEntry{Time: s.Undo.log.clock.Now().UTC(), Event: UndoOutcome, UndoRecord: r, Outcome: res.Outcome})
}

func (s *Writer) undoRecord(tx backend.Tx) model.UndoRecord {
	return model.UndoRecord{Token: tx.Token, Operation: tx.Plan.Operation, Table: s.Schema.Table,
		Endpoint: s.Endpoint.String(), Keys: append([]string{}, tx.Plan.Keys...), Undoes: tx.Plan.Undoes, Items: []model.UndoItem{}}
}

// Undoable is a write found in the undo journal: its record and, when
// known, its outcome ("" when the journal has none: the process ended
// before it knew).
type Undoable struct {
	Record  model.UndoRecord
	Outcome model.Outcome
	// UndoneBy is the token of a committed undo of it, if any.
	UndoneBy string
}

// ReadUndoJournal reads the journal at path: every write recorded, oldest
// first. A journal that does not exist holds nothing.
func ReadUndoJournal(path string) ([]Undoable, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("undo journal: %w", err)
	}
	defer f.Close()
	var out []Undoable
	at := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		var e UndoEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("undo journal %s, line %d: %w", path, n, err)
		}
		switch i, seen := at[e.Token]; {
		case e.Event == UndoBefore:
			at[e.Token] = len(out)
			out = append(out, Undoable{Record: e.UndoRecord})
		case e.Event == UndoOutcome && seen:
			out[i].Outcome = e.Outcome
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("undo journal %s: %w", path, err)
	}
	MarkUndone(out)
	return out, nil
}

// MarkUndone sets UndoneBy on each write of journal (oldest first) that a
// committed undo in it undid.
func MarkUndone(journal []Undoable) {
	at := map[string]int{} // the last write sent with each token
	for i, u := range journal {
		at[u.Record.Token] = i
	}
	for _, u := range journal {
		if i, ok := at[u.Record.Undoes]; ok && u.Record.Undoes != "" && u.Outcome == model.Committed {
			journal[i].UndoneBy = u.Record.Token
		}
	}
}

// Plan plans the undo of u from the items it changed as they are now (see
// model.Planner.Undo), noting when it was undone already.
func (u Undoable) Plan(sc *model.Schema, now func(table string, key map[string]string) model.Item) (model.Plan, error) {
	p, err := model.Planner{Schema: sc}.Undo(u.Record, now)
	if err == nil && u.UndoneBy != "" {
		p.Note += "; it was undone already, by " + u.UndoneBy
	}
	return p, err
}

// FindUndoable picks the write to undo from the journal: the one with
// token, or ("") the last committed one, of this store's table and
// endpoint. A write that was not committed has nothing to undo.
func (s *Journal) FindUndoable(journal []Undoable, token string) (Undoable, error) {
	here := func(u Undoable) bool {
		return u.Record.Table == s.Schema.Table && u.Record.Endpoint == s.Endpoint.String()
	}
	for i := len(journal) - 1; i >= 0; i-- {
		u := journal[i]
		switch {
		case token == "" && here(u) && u.Outcome == model.Committed:
			return u, nil
		case token == "" || u.Record.Token != token:
		case !here(u):
			return u, &model.FieldError{Field: "undo", Msg: fmt.Sprintf("%s was a write to table %q at %s, not to %q at %s",
				token, u.Record.Table, u.Record.Endpoint, s.Schema.Table, s.Endpoint)}
		case u.Outcome == model.Cancelled || u.Outcome == model.Skipped:
			return u, &model.FieldError{Field: "undo", Msg: fmt.Sprintf("%s %s was %s: nothing to undo", u.Record.Operation, token, u.Outcome)}
		default:
			return u, nil // committed, or unknown: the guards tell
		}
	}
	if token == "" {
		return Undoable{}, &model.FieldError{Field: "undo", Msg: fmt.Sprintf("no committed write to table %q at %s in the undo journal", s.Schema.Table, s.Endpoint)}
	}
	return Undoable{}, &model.FieldError{Field: "undo", Msg: "no write with token " + token + " in the undo journal"}
}

// PlanUndo reads the items write u changed, consistently, and plans its
// undo (see model.Planner.Undo).
func (s *Journal) PlanUndo(ctx context.Context, u Undoable) (model.Plan, error) {
	var refs []model.KeyRef
	for _, it := range u.Record.Items {
		refs = append(refs, model.KeyRef{Table: it.Table, Key: it.Key})
	}
	now := map[string]model.Item{}
	if err := s.readConsistent(ctx, refs, func(table string, it model.Item) { now[keyID(table, s.Schema.KeyOf(table, it))] = it }); err != nil {
		return model.Plan{}, err
	}
	return u.Plan(&s.Schema, func(table string, key map[string]string) model.Item { return now[keyID(table, key)] })
}

// UndoToken plans the undo of the write with token, or ("") of the last
// committed write of this table, from the store's undo journal.
func (s *Journal) UndoToken(ctx context.Context, token string) (model.Plan, error) {
	if s.Undo == nil {
		return model.Plan{}, &model.FieldError{Field: "undo", Msg: "no undo journal: writes are not recorded for undo here"}
	}
	return s.UndoFrom(ctx, s.Undo.Path, token)
}

// UndoFrom is UndoToken with the journal at path ("": the store's own).
func (s *Journal) UndoFrom(ctx context.Context, path, token string) (model.Plan, error) {
	if path == "" {
		return s.UndoToken(ctx, token)
	}
	journal, err := ReadUndoJournal(path)
	if err != nil {
		return model.Plan{}, err
	}
	u, err := s.FindUndoable(journal, token)
	if err != nil {
		return model.Plan{}, err
	}
	return s.PlanUndo(ctx, u)
}
