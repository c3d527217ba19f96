package dynamo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// callTimeout bounds one DynamoDB call, so that a dead endpoint answers
// with an error instead of a hang.
const callTimeout = 30 * time.Second

// core is what every role of a store shares: the client and its
// metering, the schema, the endpoint, the clock, the tables' descriptions
// and what the probes found, and where writes are journaled. The roles
// are views of one core, so a setting made through the Store (SetWritable,
// UseAccountsIndex, Audit) holds for every role.
type core struct {
	api      API    // the client, through meter
	meter    *meter // counts (and under --max-rcu paces) every read's capacity
	Schema   model.Schema
	Endpoint backend.Endpoint
	// Segments is the number of parallel scan segments; scans read one
	// where the backend ignores Segment and returns the whole table to
	// each (see ReadCapabilities).
	Segments int
	// PageSize is the scan Limit; 0 leaves DynamoDB's 1 MB pages.
	PageSize int32
	// MaxMemory is the check's memory budget in bytes, past which its
	// census spills to disk (model.Census.LimitMemory); 0: none.
	MaxMemory int64
	// ApproxItems is the sum of DescribeTable's ItemCount over the tables,
	// refreshed by AWS only every few hours: for progress, not for decisions.
	ApproxItems int64
	// described keeps the description of each table found ACTIVE, so that
	// the preset, EnsureTables and Verify describe a table once (see
	// describe); anything that changes a table forgets it.
	described tableCache
	// AccountsIndex is the GSI the browser lists accounts through, if any
	// (set by UseAccountsIndex), and accountsIndexHash its hash key.
	AccountsIndex     string
	accountsIndexHash string
	// w is set only when writes are allowed (SetWritable).
	w writeAPI
	// Audit, when set, records every write: its intent before it is sent,
	// its outcome after, and refusals.
	Audit *AuditLog
	// Undo, when set, keeps what undoing each write needs (see
	// UndoJournal), recorded before the write is sent.
	Undo *UndoJournal

	reads readProbe
	// probing is the write probe asked in the background (ProbeLater),
	// nil when none was: every write waits for its answer.
	probing *probeAnswer
	// TTLUnasked says, per table, why its TTL setting could not be read
	// (DescribeTimeToLive refused): a check reports it as a warning, since
	// expired locks are then judged as ordinary ones.
	TTLUnasked []string
	// ttlOnce asks the tables' TTL settings once per store (readTTL).
	ttlOnce sync.Once
	// Clock is the store's time: TTLs are judged and requests built
	// (:now, see Prepare) at it, and the audit log and undo journal stamp
	// their lines with it.
	Clock clock.Clock
}

// Store is one pattern table set. It opens, verifies, probes and
// configures the tables, and hands out each role its consumers name:
//   - Pages reads pages of accounts, locks, other items and partitions, and
//     items by key (ui/accounts, ui/locks, ui/others, ui/detail,
//     writes.ConsistentReader, backend.Reader);
//   - Checker runs the check (ui/check, cli's check and export);
//   - Lookup looks for the holders of a value, and searches (ui/search,
//     backend.Finder);
//   - Writer plans, prepares, sends and refuses writes (writes.Store);
//   - Journal plans undoing a recorded write;
//   - Seeder sends the unguarded writes seeding and demo break make;
//   - Sweeper reads every account with its locks at once (the terminal
//     UI's G).
//
// The methods are declared on the roles, a few each, and a consumer that
// needs one role is handed that role alone (store.Writer to the write
// flow, store.Lookup to a search, each to the terminal UI's view that
// names it). A role that needs another embeds it, as a Lookup reads by
// key through its Pages. The Store does not play the roles itself, so
// that no type has every method (STYLE.md 8).
type Store struct {
	*core
	Pages   *Pages
	Checker *Checker
	Lookup  *Lookup
	Writer  *Writer
	Journal *Journal
	Seeder  *Seeder
	Sweeper *Sweeper
}

// Pages reads the tables a page at a time, and items by key.
type Pages struct{ *core }

// Checker runs the check: the census of the tables, and the consistent
// re-reads that confirm what it found.
type Checker struct{ *core }

// Lookup looks for the accounts that hold a value (the holder lookup a
// write runs before it takes a value whose lock is missing), and searches
// by what a query names, reading accounts and locks by key through its
// Pages.
type Lookup struct{ *Pages }

// Writer plans writes, prepares them as transactions, sends them, and
// records a refused one. It looks for holders (its Lookup) before taking
// a value whose lock is missing, and plans undoing a write from its
// Journal: all that writes.Store names.
type Writer struct {
	*core
	*Lookup
	*Journal
}

// Journal plans undoing a write from the undo journal.
type Journal struct{ *core }

// Seeder sends single-item writes outside any transaction and
// transactions with none of Writer's settling: how seeding, and demo break
// replaying the articles' mistakes, plant problems on purpose.
type Seeder struct{ *core }

// Sweeper reads every account with its locks in about the time of one
// scan of the tables (AccountsSweep).
type Sweeper struct{ *core }

// now is the store's time (Clock).
func (s *core) now() time.Time { return s.Clock.Now() }

// SetWritable allows or forbids writes. A new store is read-only: the
// caller decides (loopback, --demo, --write; never --read-only).
func (s *Store) SetWritable(ok bool) {
	s.w = nil
	if ok {
		s.w = s.api
	}
}

// Writable reports whether the store may write.
func (s *Store) Writable() bool { return s.w != nil }

// sender is the client's mutating part, or why the store may not write:
// read-only, or the write probe found no transactions.
func (s *core) sender() (writeAPI, error) {
	if s.w == nil {
		return nil, backend.ErrReadOnly
	}
	if p := s.probing; p != nil {
		<-p.done
		switch {
		case p.err != nil:
			return nil, fmt.Errorf("%w: the backend could not be probed: %w", backend.ErrReadOnly, p.err)
		case !p.c.Transactions:
			return nil, fmt.Errorf("%w: the backend does not support transactions", backend.ErrReadOnly)
		}
	}
	return s.w, nil
}

// reader is the core as package backend's rules read it, by key (every
// role reads by key: the check confirms, the writer plans, the lookup
// confirms holders).
func (s *core) reader() backend.Reader { return &Pages{s} }

// DefaultSegments is the parallel scan width unless --segments says otherwise.
const DefaultSegments = 4

// NewStore returns a store for the schema, at the time clk tells, without
// checking the tables; Open checks them.
func NewStore(api API, ep backend.Endpoint, schema model.Schema, clk clock.Clock) *Store {
	m := &meter{API: api}
	c := &core{api: m, meter: m, Schema: schema, Endpoint: ep, Segments: DefaultSegments, Clock: clk}
	m.sizes = &c.described // a read's estimate reads the item size from what describe cached
	pages, journal := &Pages{c}, &Journal{c}
	lookup := &Lookup{pages}
	return &Store{core: c, Pages: pages, Checker: &Checker{c}, Lookup: lookup,
		Writer: &Writer{core: c, Lookup: lookup, Journal: journal}, Journal: journal, Seeder: &Seeder{c}, Sweeper: &Sweeper{c}}
}

// Open returns a store after describing every table the schema involves and
// refusing one whose key does not fit it.
func Open(ctx context.Context, api API, ep backend.Endpoint, schema model.Schema, clk clock.Clock) (*Store, error) {
	s := NewStore(api, ep, schema, clk)
	if err := s.Verify(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Verify describes every table and checks its key schema against the
// schema, recording the approximate item count.
func (s *Store) Verify(ctx context.Context) error {
	s.ApproxItems = 0
	for _, table := range s.Schema.Tables() {
		desc, err := s.describe(ctx, table)
		if err != nil {
			return err
		}
		if err := s.checkKeys(table, desc); err != nil {
			return err
		}
		s.ApproxItems += aws.ToInt64(desc.ItemCount)
	}
	s.readTTL(ctx)
	s.probeReads(ctx)
	return nil
}

// describe returns table's description, from the cache once the table
// was found ACTIVE: an active table's keys and indexes change only through
// this store (which forgets it then) or by being deleted, which the next
// request to it reports anyway. A table still being created or changed is
// described afresh each time, so that waiting for it sees it change.
func (s *core) describe(ctx context.Context, table string) (*types.TableDescription, error) {
	if desc := s.described.get(table); desc != nil {
		return desc, nil
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	out, err := s.api.DescribeTable(cctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, explain(err, "describe table", table, s.Endpoint)
	}
	if out.Table.TableStatus == types.TableStatusActive {
		s.described.put(table, out.Table)
	}
	return out.Table, nil
}

// tableCache holds table descriptions by name. It is safe for concurrent
// use: EnsureTables describes the tables side by side.
type tableCache struct {
	mu     sync.Mutex
	tables map[string]*types.TableDescription
}

func (c *tableCache) get(table string) *types.TableDescription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tables[table]
}

func (c *tableCache) put(table string, desc *types.TableDescription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables == nil {
		c.tables = map[string]*types.TableDescription{}
	}
	c.tables[table] = desc
}

// itemBytes is table's average item size (TableSizeBytes over ItemCount)
// by its cached description, so whatever described the table, Verify or
// not, decides whether a check projects (worthProjecting); 0 when the
// table is not cached or reports no size.
func (c *tableCache) itemBytes(table string) int64 {
	desc := c.get(table)
	if desc == nil {
		return 0
	}
	if n := aws.ToInt64(desc.ItemCount); n > 0 {
		return aws.ToInt64(desc.TableSizeBytes) / n
	}
	return 0
}

// forget drops table's description, after the store changed the table.
func (c *tableCache) forget(table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tables, table)
}

// stringKey accepts a string key type, or none at all: minidyn's
// DescribeTable leaves AttributeDefinitions out.
func stringKey(t types.ScalarAttributeType) bool {
	return t == types.ScalarAttributeTypeS || t == ""
}

// keyPart is one attribute of a primary key.
type keyPart struct {
	name string
	role types.KeyType
}

// wantKeys returns the primary key the schema expects of table.
func (s *core) wantKeys(table string) []keyPart {
	var want []keyPart
	for i, name := range s.Schema.KeyAttrs(table) {
		role := types.KeyTypeHash
		if i > 0 {
			role = types.KeyTypeRange
		}
		want = append(want, keyPart{name, role})
	}
	return want
}

// checkKeys refuses a table whose key is not the expected string key,
// naming the key it actually has.
func (s *core) checkKeys(table string, desc *types.TableDescription) error {
	want := s.wantKeys(table)
	attrTypes := map[string]types.ScalarAttributeType{}
	for _, d := range desc.AttributeDefinitions {
		attrTypes[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	var got []string
	match := len(desc.KeySchema) == len(want)
	for i, k := range desc.KeySchema {
		name := aws.ToString(k.AttributeName)
		got = append(got, fmt.Sprintf("%s (%s, %s)", name, k.KeyType, attrTypes[name]))
		if match && (want[i].name != name || want[i].role != k.KeyType || !stringKey(attrTypes[name])) {
			match = false
		}
	}
	if match {
		return nil
	}
	var exp []string
	for _, w := range want {
		exp = append(exp, fmt.Sprintf("%s (%s, S)", w.name, w.role))
	}
	hint := "--pk/--sk"
	if table != s.Schema.Table {
		hint = "--unique ATTR=@TABLE/KEYATTR"
	}
	return &Error{Msg: fmt.Sprintf("table %q at %s has key %s; locktable expects %s (set %s or --layout to match)",
		table, s.Endpoint, strings.Join(got, ", "), strings.Join(exp, ", "), hint)}
}
