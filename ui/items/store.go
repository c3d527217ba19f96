package items

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/spill"
)

// Store keeps blocks of accounts on disk, as the cache holds them, for a
// list that holds only a window of its accounts in memory (the accounts
// view on a table of any size): a block leaves the cache for the store
// (Put), and comes back from it when the window moves over it again
// (Get). A block is numbered by the list; the store keeps its last
// version, in an append-only file in a spill directory (which a later
// process removes if this one is killed).
type Store struct {
	set  *spill.Set
	f    *os.File
	end  int64
	kept map[int]extent // block -> where its last version is in f
	// buf is reused to encode a block, as blocks are put one at a time.
	buf bytes.Buffer
}

type extent struct {
	off int64
	n   int
}

// NewStore makes a store in a new spill directory under dir (""
// for the system's temporary directory).
func NewStore(dir string) (*Store, error) {
	set, err := spill.Create(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("keeping accounts on disk: %w", err)
	}
	f, err := os.Create(filepath.Join(set.Dir(), "accounts"))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("keeping accounts on disk: %w", err), set.Remove())
	}
	s := &Store{set: set, f: f, kept: map[int]extent{}}
	open.Lock()
	defer open.Unlock()
	open.stores[s] = true
	return s, nil
}

// open are the stores not closed yet, for CloseStores.
var open = struct {
	sync.Mutex
	stores map[*Store]bool
}{stores: map[*Store]bool{}}

// CloseStores closes every store not closed yet, removing their files:
// the terminal UI has ended. (A process killed leaves its directory to
// the next one, which removes it as stale.)
func CloseStores() error {
	open.Lock()
	stores := open.stores
	open.stores = map[*Store]bool{}
	open.Unlock()
	var errs []error
	for s := range stores {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// Put keeps the accounts ids (in the order the list shows them) as block
// b, as c holds them now, and forgets them from c but for those keep
// says another list shows. A block put again as it was is not written
// again. Nothing is forgotten if the block could not be written.
func (s *Store) Put(c *Cache, b int, ids []string, keep func(id string) bool) error {
	s.buf.Reset()
	s.buf.Write(binary.AppendUvarint(nil, uint64(len(ids))))
	for _, id := range ids {
		ca, ok := c.accounts[id]
		if !ok {
			ca = compactAccount{id: id} // not held: read again when it comes back
		}
		if err := encodeAccount(&s.buf, &ca); err != nil {
			return err
		}
	}
	data := s.buf.Bytes()
	if old, ok := s.kept[b]; !ok || !s.same(old, data) {
		if _, err := s.f.WriteAt(data, s.end); err != nil {
			return fmt.Errorf("keeping accounts on disk: %w", err)
		}
		s.kept[b] = extent{off: s.end, n: len(data)}
		s.end += int64(len(data))
	}
	for _, id := range ids {
		if keep == nil || !keep(id) {
			delete(c.accounts, id)
		}
	}
	return nil
}

// same reports whether the block at e holds data.
func (s *Store) same(e extent, data []byte) bool {
	if e.n != len(data) {
		return false
	}
	old := make([]byte, e.n)
	if _, err := s.f.ReadAt(old, e.off); err != nil {
		return false
	}
	return bytes.Equal(old, data)
}

// Get puts block b's accounts back into c, but for those c holds (read
// again since, or shown by another list: what c holds is newer), and
// returns their ids in the list's order, and those of them c did not
// hold when they were put (to be read again).
func (s *Store) Get(c *Cache, b int) (ids, unread []string, err error) {
	err = s.each(b, func(ca compactAccount) {
		_, held := c.accounts[ca.id]
		switch {
		case held:
		case ca.full == nil && ca.attrs == nil:
			unread = append(unread, ca.id)
		default:
			c.accounts[ca.id] = ca
		}
		ids = append(ids, ca.id)
	})
	return ids, unread, err
}

// IDs are the keys of block b's accounts, in the list's order; nothing
// is put in a cache.
func (s *Store) IDs(b int) (ids []string, err error) {
	err = s.each(b, func(ca compactAccount) { ids = append(ids, ca.id) })
	return ids, err
}

// Views calls f with each account of block b, in the list's order, as
// c would show it (Cache.Account): what c holds if it holds the account,
// else what the block kept; nothing is put in c. An account the block
// kept only by its key (not held when it was put) is left out.
func (s *Store) Views(c *Cache, b int, f func(model.AccountView)) error {
	return s.each(b, func(ca compactAccount) {
		if held, ok := c.accounts[ca.id]; ok {
			ca = held
		} else if ca.full == nil && ca.attrs == nil {
			return
		}
		f(c.judged(&ca))
	})
}

// each decodes block b's accounts, in order, for f.
func (s *Store) each(b int, f func(compactAccount)) error {
	e, ok := s.kept[b]
	if !ok {
		return fmt.Errorf("block %d of the accounts kept on disk is missing", b)
	}
	data := make([]byte, e.n)
	if _, err := s.f.ReadAt(data, e.off); err != nil {
		return fmt.Errorf("reading accounts back from disk: %w", err)
	}
	r := bytes.NewReader(data)
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(len(data)) {
		return fmt.Errorf("reading accounts back from disk: block %d is damaged", b)
	}
	for range n {
		ca, err := decodeAccount(r)
		if err != nil {
			return fmt.Errorf("reading accounts back from disk: %w", err)
		}
		f(ca)
	}
	return nil
}

// Bytes is how much the file holds, every version of every block.
func (s *Store) Bytes() int64 { return s.end }

// Close removes the store's file and directory.
func (s *Store) Close() error {
	open.Lock()
	delete(open.stores, s)
	open.Unlock()
	return s.close()
}

func (s *Store) close() error { return errors.Join(s.f.Close(), s.set.Remove()) }

// The encoding of an account: its key, then either its compact form
// (values, locks, as strings and varints) or, for the rare account the
// compact form cannot show, the whole view in gob.
const (
	encCompact byte = iota
	encFull
	encUnheld // its key only: it was not held, and is read again
)

func encodeAccount(w *bytes.Buffer, c *compactAccount) error {
	putString(w, c.id)
	switch {
	case c.full != nil:
		w.WriteByte(encFull)
		var g bytes.Buffer
		if err := gob.NewEncoder(&g).Encode(c.full); err != nil {
			return fmt.Errorf("keeping account %s on disk: %w", model.Printable(c.id), err)
		}
		putString(w, g.String())
	case c.attrs == nil:
		w.WriteByte(encUnheld)
	default:
		w.WriteByte(encCompact)
		w.Write(binary.AppendVarint(nil, c.now))
		w.Write(binary.AppendUvarint(nil, uint64(len(c.attrs))))
		for _, a := range c.attrs {
			putBool(w, a.present)
			putString(w, a.s)
		}
		w.Write(binary.AppendUvarint(nil, uint64(len(c.locks))))
		for _, l := range c.locks {
			putString(w, l.value)
			putString(w, l.owner)
			w.Write(binary.AppendVarint(nil, l.expiresAt))
			putString(w, string(l.status))
			putBool(w, l.found)
		}
	}
	return nil
}

func decodeAccount(r *bytes.Reader) (compactAccount, error) {
	var c compactAccount
	var err error
	if c.id, err = getString(r); err != nil {
		return c, err
	}
	kind, err := r.ReadByte()
	if err != nil {
		return c, err
	}
	switch kind {
	case encUnheld:
		return c, nil
	case encFull:
		s, err := getString(r)
		if err != nil {
			return c, err
		}
		var a model.AccountView
		if err := gob.NewDecoder(bytes.NewReader([]byte(s))).Decode(&a); err != nil {
			return c, err
		}
		c.full = &a
		return c, nil
	}
	d := decoder{r: r}
	c.now = d.varint()
	c.attrs = make([]compactAttr, d.uvarint())
	for i := range c.attrs {
		c.attrs[i] = compactAttr{present: d.bool(), s: d.string()}
	}
	c.locks = make([]compactLock, d.uvarint())
	for i := range c.locks {
		c.locks[i] = compactLock{value: d.string(), owner: d.string(), expiresAt: d.varint(), status: model.LockStatus(d.string()), found: d.bool()}
	}
	return c, d.err
}

func putString(w *bytes.Buffer, s string) {
	w.Write(binary.AppendUvarint(nil, uint64(len(s))))
	w.WriteString(s)
}

func putBool(w *bytes.Buffer, b bool) {
	if b {
		w.WriteByte(1)
	} else {
		w.WriteByte(0)
	}
}

func getString(r *bytes.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > uint64(r.Len()) {
		return "", fmt.Errorf("a record longer than its block")
	}
	b := make([]byte, n)
	_, err = r.Read(b)
	return string(b), err
}

// decoder reads a record's fields, keeping the first error.
type decoder struct {
	r   *bytes.Reader
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var n uint64
	n, d.err = binary.ReadUvarint(d.r)
	if n > uint64(d.r.Len()) {
		n, d.err = 0, fmt.Errorf("a record longer than its block")
	}
	return n
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	var n int64
	n, d.err = binary.ReadVarint(d.r)
	return n
}

func (d *decoder) string() string {
	if d.err != nil {
		return ""
	}
	var s string
	s, d.err = getString(d.r)
	return s
}

func (d *decoder) bool() bool {
	if d.err != nil {
		return false
	}
	var b byte
	b, d.err = d.r.ReadByte()
	return b == 1
}
