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

// Store reads (and, for seeding, writes) one pattern table set.
type Store struct {
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
	w writer
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

// now is the store's time (Clock).
func (s *Store) now() time.Time { return s.Clock.Now() }

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

func (s *Store) writer() (writer, error) {
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

// DefaultSegments is the parallel scan width unless --segments says otherwise.
const DefaultSegments = 4

// NewStore returns a store for the schema, at the time clk tells, without
// checking the tables; Open checks them.
func NewStore(api API, ep backend.Endpoint, schema model.Schema, clk clock.Clock) *Store {
	m := &meter{API: api}
	s := &Store{api: m, meter: m, Schema: schema, Endpoint: ep, Segments: DefaultSegments, Clock: clk}
	m.sizes = &s.described // a read's estimate reads the item size from what describe cached
	return s
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
func (s *Store) describe(ctx context.Context, table string) (*types.TableDescription, error) {
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
func (s *Store) wantKeys(table string) []keyPart {
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
func (s *Store) checkKeys(table string, desc *types.TableDescription) error {
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
