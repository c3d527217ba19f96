package export

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/locktable/locktable/model"
)

// Dialect is an SQL engine Query writes for.
type Dialect string

// The dialects Query writes.
const (
	DuckDB Dialect = "duckdb"
	Athena Dialect = "athena" // Athena engine 3, Trino
)

// Dialects lists every dialect, for messages.
var Dialects = []Dialect{Athena, DuckDB}

// ParseDialect reads --dialect.
func ParseDialect(s string) (Dialect, error) {
	for _, d := range Dialects {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("--dialect %q: want athena or duckdb", s)
}

// Query returns one SQL query that finds every problem of s over the
// exports of its tables, with the columns of check --json's problems
// (kind, constraint, value, lock, lock_table, owner, accounts) in check's
// order. relations maps each table of s to the SQL relation that holds
// its export, used as written: a table or view name, or (DuckDB) a
// read_json call. Each relation has one row per item and a column Item,
// the item in DynamoDB JSON ({"PK":{"S":"ACCT#a1"},...}) as JSON or JSON
// text, as the export's data files hold it under "Item".
//
// A problem's lock is a map from the key's attribute names to its values
// (NULL when there is none), accounts an array of strings, and an
// invalid_value's value the attribute's DynamoDB JSON as the engine
// renders it: the same JSON value as check's, its text may differ in
// escaping and in the order of a map's keys. --normalize lower is SQL's
// lower(), which agrees with Go's strings.ToLower wherever the engines'
// Unicode tables do; casefold has no SQL equivalent and is refused.
//
// TTLs are judged at now (epoch seconds), written into the query as a
// literal, by the rules of model.Census: an expired lock is an
// expired_lock and never an orphan, foreign or missing lock, a reserved
// lock held by an account that outlives it an expiring_lock (both with
// expires_at), a reserved lock nobody holds no problem. The query reports
// problems only: it counts no reservations, and a TTL that DynamoDB
// ignores (not a number, or in milliseconds) is judged as none
// without the warning check --export gives for it.
func Query(s *model.Schema, d Dialect, relations map[string]string, now int64) (string, error) {
	for _, c := range s.Constraints {
		if c.Normalize == model.NormalizeCasefold {
			return "", fmt.Errorf("--normalize %s=casefold (NFC, full Unicode case folding, NFC) has no SQL equivalent; check --export reads the export with it", c.Attr)
		}
	}
	var sq sqlDialect = duckdb{}
	if d == Athena {
		sq = trino{}
		for _, t := range s.Tables() {
			for _, name := range s.ReadNames(t) {
				if strings.ContainsAny(name, `"\`) {
					return "", fmt.Errorf("attribute %s: Athena's JSON paths cannot name an attribute with \" or \\ in it", model.Printable(name))
				}
			}
		}
	}
	for _, t := range s.Tables() {
		if relations[t] == "" {
			return "", fmt.Errorf("no export table for %s", t)
		}
	}
	q := &query{s: s, d: sq, now: now}
	return q.write(relations), nil
}

// sqlDialect spells what differs between engines.
type sqlDialect interface {
	// attrs selects the DynamoDB JSON of each named attribute of a
	// relation's Item, as columns x0, x1, ... (NULL when absent).
	attrs(relation string, names []string) string
	member(json, key string) string // the JSON of a member of an object, NULL when absent
	text(json, key string) string   // a string member as text
	render(json string) string      // JSON as text
	bytes(s string) string          // UTF-8 length
	collect(expr, cond string) string
	emptyList() string
	list(expr string) string
	mapOf(keys, values []string) string
	contains(list, expr string) string
	size(list string) string
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Ident quotes s as an SQL identifier: the relation Query uses for a
// table when none is given.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

type duckdb struct{}

// pointer is a JSON Pointer to member key.
func pointer(key string) string {
	return "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

func (duckdb) attrs(relation string, names []string) string {
	paths := make([]string, len(names))
	cols := make([]string, len(names))
	for i, n := range names {
		paths[i] = sqlString(pointer(n))
		cols[i] = fmt.Sprintf("f[%d] AS x%d", i+1, i)
	}
	// One parse of each item: json_extract with a list of paths. Item as
	// text: a STRUCT (read_json's guess when not told columns={Item:
	// 'JSON'}) renders as no JSON and fails loudly, where its cast to JSON
	// would carry a null for every type tag other items have.
	return fmt.Sprintf("SELECT %s FROM (SELECT json_extract(CAST(Item AS VARCHAR), [%s]) AS f FROM %s) AS i", strings.Join(cols, ", "), strings.Join(paths, ", "), relation)
}
func (duckdb) member(j, key string) string {
	return fmt.Sprintf("json_extract(%s, %s)", j, sqlString(pointer(key)))
}
func (duckdb) text(j, key string) string {
	return fmt.Sprintf("json_extract_string(%s, %s)", j, sqlString(pointer(key)))
}
func (duckdb) render(j string) string      { return fmt.Sprintf("CAST(%s AS VARCHAR)", j) }
func (duckdb) bytes(s string) string       { return fmt.Sprintf("strlen(%s)", s) }
func (duckdb) emptyList() string           { return "CAST([] AS VARCHAR[])" }
func (duckdb) list(e string) string        { return "[" + e + "]" }
func (duckdb) contains(l, e string) string { return fmt.Sprintf("list_contains(%s, %s)", l, e) }
func (duckdb) size(l string) string        { return fmt.Sprintf("len(%s)", l) }
func (duckdb) collect(e, cond string) string {
	return fmt.Sprintf("list_sort(list_distinct(list(%s) FILTER (WHERE %s)))", e, cond)
}
func (duckdb) mapOf(keys, values []string) string {
	pairs := make([]string, len(keys))
	for i := range keys {
		pairs[i] = keys[i] + ": " + values[i]
	}
	return "MAP {" + strings.Join(pairs, ", ") + "}"
}

type trino struct{}

func jsonPath(key string) string { return sqlString(`$["` + key + `"]`) }

func (t trino) attrs(relation string, names []string) string {
	cols := make([]string, len(names))
	for i, n := range names {
		cols[i] = fmt.Sprintf("%s AS x%d", t.member("Item", n), i)
	}
	return fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), relation)
}
func (trino) member(j, key string) string {
	return fmt.Sprintf("json_extract(%s, %s)", j, jsonPath(key))
}
func (trino) text(j, key string) string {
	return fmt.Sprintf("json_extract_scalar(%s, %s)", j, jsonPath(key))
}
func (trino) render(j string) string      { return fmt.Sprintf("json_format(%s)", j) }
func (trino) bytes(s string) string       { return fmt.Sprintf("length(to_utf8(%s))", s) }
func (trino) emptyList() string           { return "CAST(ARRAY[] AS ARRAY(VARCHAR))" }
func (trino) list(e string) string        { return "ARRAY[" + e + "]" }
func (trino) contains(l, e string) string { return fmt.Sprintf("contains(%s, %s)", l, e) }
func (trino) size(l string) string        { return fmt.Sprintf("cardinality(%s)", l) }
func (trino) collect(e, cond string) string {
	return fmt.Sprintf("array_sort(array_distinct(array_agg(%s) FILTER (WHERE %s)))", e, cond)
}
func (trino) mapOf(keys, values []string) string {
	return fmt.Sprintf("MAP(ARRAY[%s], ARRAY[%s])", strings.Join(keys, ", "), strings.Join(values, ", "))
}

// query writes the SQL. It reads each export once: every item becomes
// at most one entry per slot (its lock, its invalid owner, its holding of
// each constraint), entries are grouped by constraint and value (an
// invalid one alone), and each group yields its problems. On engines that
// do not materialize a common table expression used twice (Trino), a
// second reference would read the export again.
type query struct {
	s   *model.Schema
	d   sqlDialect
	now int64 // epoch seconds: a TTL not after it has passed
	b   strings.Builder
}

func (q *query) line(format string, a ...any) { fmt.Fprintf(&q.b, format+"\n", a...) }

func (q *query) write(relations map[string]string) string {
	s, d := q.s, q.d
	q.line("-- locktable sql: every problem of %s, as check --export reports them", sqlComment(s.Table))
	if s.HasTTL() {
		q.line("-- TTLs judged at %d (%s): a TTL not after it has passed; one that is not a number", q.now, time.Unix(q.now, 0).UTC().Format(time.RFC3339))
		q.line("-- of epoch seconds (a string, milliseconds above %d) is judged as none, with no warning", model.MaxTTL)
	}
	q.line("WITH")
	var sources []string
	// The account table.
	names := s.ReadNames(s.Table) // keys, owner, constraint attributes
	col := map[string]string{}
	for i, n := range names {
		col[n] = fmt.Sprintf("x%d", i)
	}
	lockCI := "CAST(NULL AS INTEGER)"
	lockValue := "CAST(NULL AS VARCHAR)"
	var whens, values []string
	for ci, c := range s.Constraints {
		if !c.InAccountTable() {
			continue
		}
		n := utf8.RuneCountInString(c.Prefix)
		cond := fmt.Sprintf("substr(pk, 1, %d) = %s", n, sqlString(c.Prefix))
		if c.Scope != "" {
			// A non-empty scope, then the tail (as model.Classify reads it).
			cond += fmt.Sprintf(" AND strpos(substr(pk, %d), %s) > 1", n+1, sqlString(c.Tail))
		}
		if s.SK != "" {
			cond = fmt.Sprintf("sk = %s AND %s", lockSortKey(s, ci), cond)
		}
		whens = append(whens, fmt.Sprintf("WHEN %s THEN %d", cond, ci))
		values = append(values, fmt.Sprintf("WHEN %d THEN substr(pk, %d)", ci, n+1))
	}
	if len(whens) > 0 {
		lockCI = "CASE " + strings.Join(whens, " ") + " END"
		lockValue = "CASE lock_ci " + strings.Join(values, " ") + " END"
	}
	account, id := q.account(col)
	sk := "CAST(NULL AS VARCHAR)"
	if s.SK != "" {
		sk = d.text(col[s.SK], "S")
	}
	// a0: the attributes of each item; a1: its key parts and TTL (the
	// account's, and that of the locks beside the accounts); a2: what it is.
	q.line("a0 AS (%s),", d.attrs(relations[s.Table], names))
	q.line("a1 AS (SELECT *, %s AS pk, %s AS sk, %s AS ttl FROM a0),", d.text(col[s.PK], "S"), sk, q.ttl(col[s.TTLAttr]))
	q.line("a2 AS (SELECT *, %s AS lock_ci FROM a1 WHERE pk IS NOT NULL),", lockCI)
	q.line("a3 AS (SELECT *, %s AS lock_value, lock_ci IS NULL AND %s AS is_account FROM a2),", lockValue, account)
	// Slots: 0 the lock, 1 its owner when not a string, 2+ci the
	// account's holding of constraint ci.
	slots := 2 + len(s.Constraints)
	var ciCase, roleCase, vCase []string
	for ci, c := range s.Constraints {
		x := col[c.Attr]
		str := d.text(x, "S")
		norm := str
		if c.Normalize == model.NormalizeLower {
			norm = "lower(" + str + ")"
		}
		nothing := fmt.Sprintf("%s IS NULL OR %s IS NOT NULL OR coalesce(%s = '', FALSE)", x, d.member(x, "NULL"), str)
		if c.Scope != "" {
			// Unique per scope: a string without a scope holds nothing;
			// the value is the scope, the tail, then the normalized value.
			scope := d.text(col[c.Scope], "S")
			nothing += fmt.Sprintf(" OR (%s IS NOT NULL AND coalesce(%s = '', TRUE))", str, scope)
			norm = fmt.Sprintf("%s || %s || %s", scope, sqlString(c.Tail), norm)
		}
		fits := fmt.Sprintf("%s IS NOT NULL AND %d + %s <= %d", str, len(c.Prefix), d.bytes(norm), model.MaxPartitionKeyBytes)
		slot := 2 + ci
		ciCase = append(ciCase, fmt.Sprintf("WHEN slot = %d AND is_account AND NOT (%s) THEN %d", slot, nothing, ci))
		roleCase = append(roleCase, fmt.Sprintf("WHEN slot = %d THEN CASE WHEN %s THEN 'hold' ELSE 'bad_value' END", slot, fits))
		vCase = append(vCase, fmt.Sprintf("WHEN slot = %d THEN CASE WHEN %s THEN %s ELSE %s END", slot, fits, norm, d.render(x)))
	}
	// entries turns the items of one relation into the entries of their
	// slots; owner is the column of the owner attribute's JSON, id that of
	// the account key (none: not an account table).
	entries := func(from, owner, id string, holdings bool) string {
		ownerS := d.text(owner, "S")
		ci := []string{"WHEN slot = 0 THEN lock_ci", fmt.Sprintf("WHEN slot = 1 AND %s IS NOT NULL AND %s IS NULL THEN lock_ci", owner, ownerS)}
		role := []string{"WHEN slot = 0 THEN 'lock'", "WHEN slot = 1 THEN 'bad_owner'"}
		v := []string{"WHEN slot = 0 THEN lock_value", fmt.Sprintf("WHEN slot = 1 THEN %s", d.render(owner))}
		n := 2
		if holdings {
			ci, role, v = append(ci, ciCase...), append(role, roleCase...), append(v, vCase...)
			n = slots
		}
		return fmt.Sprintf("SELECT * FROM (SELECT CASE %s END AS ci, CASE %s END AS role, CASE %s END AS v, "+
			"CASE WHEN slot >= 2 THEN %s END AS id, CASE WHEN slot = 0 THEN coalesce(%s, '') END AS owner, lock_value, "+
			"CASE WHEN slot <> 1 THEN ttl END AS item_ttl "+
			"FROM %s CROSS JOIN (VALUES %s) AS s(slot)) AS e WHERE ci IS NOT NULL",
			strings.Join(ci, " "), strings.Join(role, " "), strings.Join(v, " "), id, ownerS, from, slotValues(n))
	}
	sources = append(sources, entries("a3", col[s.OwnerAttr], id, true))
	// Each lock table: every item keyed by a string is a lock.
	for ci, c := range s.Constraints {
		if c.InAccountTable() {
			continue
		}
		name := fmt.Sprintf("l%d", ci)
		read, ttl := s.ReadNames(c.LockTable), "" // its key, the owner, and its own TTL attribute
		if c.TTLAttr != "" {
			ttl = "x2"
		}
		q.line("%s AS (SELECT *, %d AS lock_ci, %s AS lock_value, %s AS ttl FROM (%s) AS r WHERE %s IS NOT NULL),",
			name, ci, d.text("x0", "S"), q.ttl(ttl), d.attrs(relations[c.LockTable], read), d.text("x0", "S"))
		sources = append(sources, entries(name, "x1", "CAST(NULL AS VARCHAR)", false))
	}
	q.line("entries AS (%s),", strings.Join(sources, " UNION ALL "))
	// One group per (constraint, value); an invalid entry is a group of
	// its own. Of the TTLs: the lock's, the latest holder's, and whether
	// a holder has none (it never expires).
	q.line("grouped AS (SELECT ci, v, grp, %s AS holders, max(CASE WHEN role = 'lock' THEN 1 ELSE 0 END) = 1 AS locked, "+
		"max(CASE WHEN role = 'lock' THEN owner END) AS owner, max(role) AS role, max(id) AS id, max(lock_value) AS lock_value, "+
		"max(CASE WHEN role = 'lock' THEN item_ttl END) AS lock_at, max(CASE WHEN role = 'hold' THEN item_ttl END) AS latest, "+
		"max(CASE WHEN role = 'hold' AND item_ttl IS NULL THEN 1 ELSE 0 END) = 1 AS never "+
		"FROM (SELECT *, CASE role WHEN 'bad_value' THEN 'a' || id WHEN 'bad_owner' THEN 'l' || lock_value ELSE '' END AS grp FROM entries) AS g "+
		"GROUP BY ci, v, grp),", d.collect("id", "role = 'hold'"))
	// An expired lock: its TTL is not after now (model.Lease.Verdict). An
	// expiring one: its TTL is ahead, and a holder outlives it: it has
	// none or a later one (model.Lease.Outlives).
	q.line("judged AS (SELECT ci, v, grp, holders, locked, owner, role, id, lock_value, lock_at, "+
		"locked AND coalesce(lock_at <= %[1]d, FALSE) AS expired, "+
		"locked AND coalesce(lock_at > %[1]d, FALSE) AND %[2]s >= 1 AND (never OR coalesce(latest > lock_at, FALSE)) AS expiring "+
		"FROM (SELECT ci, v, grp, coalesce(holders, %[3]s) AS holders, locked, owner, role, id, lock_value, lock_at, latest, never FROM grouped) AS h),",
		q.now, d.size("holders"), d.emptyList())
	q.line("problems AS (SELECT ci, kind, v, grp, holders, locked, owner, role, id, lock_at, "+
		"CASE WHEN grp = '' THEN v ELSE lock_value END AS lock_value FROM judged CROSS JOIN (VALUES %s) AS k(kind) WHERE %s)",
		kindValues(), q.kinds())
	var constraintCase, lockCase, tableCase []string
	for ci, c := range s.Constraints {
		constraintCase = append(constraintCase, fmt.Sprintf("WHEN %d THEN %s", ci, sqlString(c.Attr)))
		// A key attribute that differs between two values ends with the
		// value (the lock's PK, its SK when =PK, a lock table's key).
		_, key := s.LockKey(ci, "")
		_, probe := s.LockKey(ci, "\x00")
		var keys, vals []string
		for _, k := range sortedKeys(key) {
			keys = append(keys, sqlString(k))
			if key[k] != probe[k] {
				vals = append(vals, sqlString(key[k])+" || lock_value")
			} else {
				vals = append(vals, sqlString(key[k]))
			}
		}
		lockCase = append(lockCase, fmt.Sprintf("WHEN %d THEN %s", ci, d.mapOf(keys, vals)))
		if !c.InAccountTable() {
			tableCase = append(tableCase, fmt.Sprintf("WHEN %d THEN %s", ci, sqlString(c.LockTable)))
		}
	}
	hasLock := "(grp = '' AND locked AND kind <> 'missing_lock') OR role = 'bad_owner'"
	lockTable := "CAST(NULL AS VARCHAR)"
	if len(tableCase) > 0 {
		lockTable = fmt.Sprintf("CASE WHEN %s THEN CASE ci %s END END", hasLock, strings.Join(tableCase, " "))
	}
	q.line("SELECT kind, CASE ci %s END AS %s, v AS %s,", strings.Join(constraintCase, " "), Ident("constraint"), Ident("value"))
	q.line("  CASE WHEN %s THEN CASE ci %s END END AS %s,", hasLock, strings.Join(lockCase, " "), Ident("lock"))
	q.line("  %s AS lock_table,", lockTable)
	q.line("  CASE WHEN grp = '' AND locked AND owner <> '' THEN owner END AS %s,", Ident("owner"))
	q.line("  CASE WHEN grp = '' THEN holders WHEN role = 'bad_value' THEN %s ELSE %s END AS accounts,", d.list("id"), d.emptyList())
	q.line("  CASE WHEN kind IN ('expired_lock', 'expiring_lock') THEN lock_at END AS expires_at")
	q.line("FROM problems")
	q.line("ORDER BY ci, v, kind, accounts, lock_value")
	return q.b.String()
}

// account is the SQL condition under which an item of the account table
// (its attributes' columns col) is an account, and the SQL of its id.
func (q *query) account(col map[string]string) (cond, id string) {
	s := q.s
	cond, id = "TRUE", "pk"
	if s.AccountPrefix != "" {
		cond = fmt.Sprintf("substr(pk, 1, %d) = %s", utf8.RuneCountInString(s.AccountPrefix), sqlString(s.AccountPrefix))
	}
	switch {
	case s.SK != "" && s.AccountSK == model.KeyInID:
		// Any sort key: the account is named by its whole key, as
		// model.WholeKeyID writes it.
		id = `replace(replace(pk, '\', '\\'), '|', '\|') || '|' || sk`
	case s.SK != "":
		cond += " AND sk = " + sortKey(s.AccountSK)
	}
	if s.AccountType.Attr != "" {
		cond += fmt.Sprintf(" AND coalesce(%s = %s, FALSE)", q.d.text(col[s.AccountType.Attr], "S"), sqlString(s.AccountType.Value))
	}
	return cond, id
}

// sortKey is the SQL of a configured sort key: the item's own partition
// key for model.SameAsPK, else the constant.
func sortKey(sk string) string {
	if sk == model.SameAsPK {
		return "pk"
	}
	return sqlString(sk)
}

// lockSortKey is the SQL of the sort key of constraint ci's locks in the
// account table: the item's own partition key where it is the lock key
// (model.SameAsPK), else the constant, the constraint's own where it has
// one (ElectroDB's name_email).
func lockSortKey(s *model.Schema, ci int) string {
	_, key := s.LockKey(ci, "")
	if _, probe := s.LockKey(ci, "\x00"); probe[s.SK] != key[s.SK] {
		return "pk"
	}
	return sqlString(key[s.SK])
}

// kinds is the condition under which a group yields each kind, as
// model.Census.Problems decides. A lock with a TTL is never an orphan:
// expired, it is an expired_lock; reserved, nobody's yet. An expired or
// expiring lock is never a foreign one.
func (q *query) kinds() string {
	n := q.d.size("holders")
	return strings.Join([]string{
		fmt.Sprintf("(kind = 'duplicate_value' AND grp = '' AND %s >= 2)", n),
		fmt.Sprintf("(kind = 'missing_lock' AND grp = '' AND %s >= 1 AND NOT locked)", n),
		fmt.Sprintf("(kind = 'orphan_lock' AND grp = '' AND locked AND %s = 0 AND lock_at IS NULL)", n),
		fmt.Sprintf("(kind = 'foreign_lock' AND grp = '' AND locked AND %s >= 1 AND owner <> '' AND NOT %s AND NOT expired AND NOT expiring)",
			n, q.d.contains("holders", "owner")),
		"(kind = 'expired_lock' AND grp = '' AND expired)",
		"(kind = 'expiring_lock' AND grp = '' AND expiring)",
		"(kind = 'invalid_value' AND grp <> '')",
	}, " OR ")
}

// ttl is the SQL of an item's TTL in epoch seconds, as model.ReadLease
// reads column x (an attribute's DynamoDB JSON): a number up to
// model.MaxTTL (above is milliseconds), rounded up; NULL for none and for
// one DynamoDB ignores. x "" is a table without a TTL attribute.
func (q *query) ttl(x string) string {
	if x == "" {
		return "CAST(NULL AS BIGINT)"
	}
	f := fmt.Sprintf("TRY_CAST(%s AS DOUBLE)", q.d.text(x, "N"))
	return fmt.Sprintf("CAST(ceil(CASE WHEN %s <= %d THEN %s END) AS BIGINT)", f, model.MaxTTL, f)
}

func slotValues(n int) string {
	v := make([]string, n)
	for i := range v {
		v[i] = fmt.Sprintf("(%d)", i)
	}
	return strings.Join(v, ", ")
}

func kindValues() string {
	v := make([]string, len(model.ProblemKinds))
	for i, k := range model.ProblemKinds {
		v[i] = "(" + sqlString(string(k)) + ")"
	}
	return strings.Join(v, ", ")
}

// sqlComment keeps s on one line of an SQL comment.
func sqlComment(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }
