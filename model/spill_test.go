package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/internal/memtest"
)

// spillingCensus returns a census whose budget is so small that it spills
// after every value, at every level of partitioning.
func spillingCensus(s *Schema) *Census {
	c := NewCensus(s, testNow)
	c.LimitMemory(1)
	return c
}

// reconciled reconciles c, failing the test on an error.
func reconciled(t *testing.T, c *Census) []Problem {
	t.Helper()
	ps, err := c.Reconcile()
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return ps
}

// TestSpillCensusCases: every case of the census table, spilled after each
// value and reconciled partition by partition, gives the problems the
// table wants, and Close leaves no file behind.
func TestSpillCensusCases(t *testing.T) {
	for _, tt := range censusCases() {
		t.Run(tt.name, func(t *testing.T) {
			c := spillingCensus(tt.schema)
			for _, r := range tt.rows {
				c.Add(r.table, r.item)
			}
			checkCounts(t, c, tt.counts)
			held := 0
			for _, cv := range censusOf(tt.schema, tt.rows).values {
				cv.each(func(uint32, []byte, []byte) { held++ })
			}
			if held > 0 && c.Spilled().Spills == 0 {
				t.Fatalf("the census did not spill")
			}
			dir := ""
			if c.spilled() {
				dir = c.spill.files.Dir()
			}
			checkProblems(t, tt.schema, reconciled(t, c), tt.want)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); dir != "" && !os.IsNotExist(err) {
				t.Errorf("%s is left after Close: %v", dir, err)
			}
		})
	}
}

// randomRows is a stream with every kind of problem, in both layouts:
// accounts drawing values from a small pool (duplicates, values in other
// cases), locks for some values with random owners (orphans, foreign
// locks), some missing, some invalid, in random order. Where s has TTL
// attributes, some locks and accounts expire (expired and expiring
// locks, reservations), and some TTLs are ones DynamoDB ignores.
func randomRows(r *rand.Rand, s *Schema, accounts int) []row {
	var rows []row
	pool := accounts / 2
	id := func(i int) string { return s.AccountPrefix + fmt.Sprintf("a%d", i) }
	value := func(ci int) Value {
		switch r.IntN(20) {
		case 0:
			return N(strconv.Itoa(r.IntN(5)))
		case 1:
			return S("")
		}
		v := fmt.Sprintf("v%d.%d", ci, r.IntN(pool))
		if r.IntN(8) == 0 {
			v = "V" + v[1:] // another case of the value: one under lower and casefold
		}
		return S(v)
	}
	// ttl gives item it a TTL now and then, where attr is one: mostly an
	// hour either side of testNow, sometimes one DynamoDB ignores.
	ttl := func(it Item, attr string, one int) {
		if attr == "" || r.IntN(one) != 0 {
			return
		}
		switch r.IntN(12) {
		case 0:
			it[attr] = S("soon")
		case 1:
			it[attr] = N(strconv.FormatInt(testNow*1000, 10)) // milliseconds
		case 2:
			it[attr] = N([]string{"0", "-5", strconv.Itoa(testNow) + ".5"}[r.IntN(3)]) // long past, or reserved a second more
		default:
			it[attr] = N(strconv.Itoa(testNow + r.IntN(7200) - 3600))
		}
	}
	lockRow := func(ci int, v string, owner Value, owned bool) row {
		table, key := s.LockKey(ci, v)
		it := Item{}
		for k, kv := range key {
			it[k] = S(kv)
		}
		if owned {
			it[s.OwnerAttr] = owner
		}
		ttl(it, s.LockTTLAttr(ci), 4)
		return row{table, it}
	}
	for i := range accounts {
		it := Item{s.PK: S(id(i))}
		if s.SK != "" {
			it[s.SK] = S(s.AccountSK)
		}
		for ci, con := range s.Constraints {
			v := value(ci)
			it[con.Attr] = v
			if v.Kind != KindS || v.S == "" || r.IntN(10) == 0 {
				continue // no lock: missing
			}
			owner := S(id(i))
			if r.IntN(10) == 0 {
				owner = S(id(r.IntN(accounts))) // another account's: foreign
			}
			rows = append(rows, lockRow(ci, con.Normalize.Apply(v.S), owner, r.IntN(4) != 0))
		}
		ttl(it, s.TTLAttr, 6)
		rows = append(rows, row{s.Table, it})
	}
	for range accounts / 4 { // locks of values nobody may hold: orphans
		ci := r.IntN(len(s.Constraints))
		rows = append(rows, lockRow(ci, fmt.Sprintf("v%d.%d", ci, r.IntN(2*pool)), S(id(r.IntN(accounts))), r.IntN(2) == 0))
	}
	for i := range 20 { // invalid owners alike: problems that tie but for their lock
		rows = append(rows, lockRow(0, fmt.Sprintf("bad-owner-%d", i), N("1"), true))
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

// TestSpillEqualsInMemory: random streams with every kind of problem, in
// both layouts and every normalization, give the same problems and counts
// in memory and spilled under budgets from "after every value" to a few
// spills.
func TestSpillEqualsInMemory(t *testing.T) {
	tables := DefaultSchema(LayoutTables)
	for _, n := range []Normalization{NormalizeNone, NormalizeLower, NormalizeCasefold} {
		single := DefaultSchema(LayoutSingle)
		single.Constraints[0].Normalize, tables.Constraints[1].Normalize = n, n
		for _, s := range []Schema{withTTL(single), withTTL(tables)} {
			for seed := range uint64(4) {
				name := fmt.Sprintf("%s/%s/%d", s.Layout, n, seed)
				t.Run(name, func(t *testing.T) {
					// After every value, recursion included, on a short
					// stream (once per schema: it creates many files);
					// a few spills on a longer one.
					for _, run := range []struct {
						accounts int
						budget   int64
					}{{60, 1}, {400, 48 << 10}} {
						if run.budget == 1 && seed > 0 {
							continue
						}
						rows := randomRows(rand.New(rand.NewPCG(seed, uint64(run.accounts))), &s, run.accounts)
						memory := censusOf(&s, rows)
						want := problemsJSON(t, memory.Problems())
						kinds := map[ProblemKind]bool{}
						for _, p := range memory.Problems() {
							kinds[p.Kind] = true
						}
						if run.accounts >= 400 && len(kinds) != len(ProblemKinds) {
							t.Fatalf("the stream has only %v: not every kind", kinds)
						}
						c := NewCensus(&s, testNow)
						c.LimitMemory(run.budget)
						for _, r := range rows {
							c.Add(r.table, r.item)
						}
						if c.Spilled().Spills == 0 {
							t.Fatalf("budget %d: the census did not spill", run.budget)
						}
						got := problemsJSON(t, reconciled(t, c))
						if !slices.Equal(got, want) {
							t.Errorf("budget %d: spilled problems differ:\n got %v\nwant %v", run.budget, got, want)
						}
						if c.Reservations() != memory.Reservations() || !slices.Equal(c.Warnings(), memory.Warnings()) {
							t.Errorf("budget %d: %d reservations and warnings %q, in memory %d and %q", run.budget,
								c.Reservations(), c.Warnings(), memory.Reservations(), memory.Warnings())
						}
						if c.Scanned != memory.Scanned || c.Accounts != memory.Accounts || c.Locks != memory.Locks {
							t.Errorf("budget %d: counts %d/%d/%d, in memory %d/%d/%d", run.budget,
								c.Scanned, c.Accounts, c.Locks, memory.Scanned, memory.Accounts, memory.Locks)
						}
						c.Close()
					}
				})
			}
		}
	}
}

// TestSpillCensusFile: a part written by a census that spilled (copied
// from its partition files) merges into what the part of a census in
// memory does.
func TestSpillCensusFile(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	rows := randomRows(rand.New(rand.NewPCG(7, 7)), &s, 300)
	want, err := merge(&s, 0, part(t, censusOf(&s, rows), 1, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	c := spillingCensus(&s)
	defer c.Close()
	for _, r := range rows {
		c.Add(r.table, r.item)
	}
	got, err := merge(&s, 0, part(t, c, 1, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got.Problems())
	b, _ := json.Marshal(want.Problems())
	if c.Spilled().Spills == 0 || string(a) != string(b) || len(want.Problems()) == 0 {
		t.Errorf("spilled %d times; merged part:\n got %s\nwant %s", c.Spilled().Spills, a, b)
	}
}

// synthetic streams about n items of the default single layout, the way a
// check reads them (one item map reused), with problems planted among
// healthy accounts at known places; it returns the problems planted. They
// are planted in one account of every thousand, fewer in a long stream,
// so that the problems (which a check keeps in memory) stay a small part
// of the heap measured.
func synthetic(s *Schema, n int, add func(table string, it Item)) []Problem {
	every := max(1000, n/3000)
	scratch := Item{}
	var planted []Problem
	id := func(i int) string { return fmt.Sprintf("ACCT#%08x%d", uint32(i)*2654435761, i) }
	emit := func(kv ...string) {
		clear(scratch)
		for i := 0; i < len(kv); i += 2 {
			scratch[kv[i]] = S(kv[i+1])
		}
		add(s.Table, scratch)
	}
	for i, items := 0, 0; items < n; i++ {
		a := id(i)
		email, user := fmt.Sprintf("user.%d@example.org", i), fmt.Sprintf("user%d", i)
		emailOwner, userLock := a, true
		switch i % every {
		case 1: // missing_lock
			emailOwner = ""
			planted = append(planted, Classifier{s}.HolderProblem(MissingLock, 0, email, "", []string{a}))
		case 2: // orphan_lock naming an owner, and one naming nobody
			emit(s.PK, "UNIQ#HANDLE#gone"+user, s.SK, s.LockSK, s.OwnerAttr, a)
			emit(s.PK, "UNIQ#EMAIL#left."+email, s.SK, s.LockSK)
			items += 2
			planted = append(planted, Classifier{s}.LockProblem(OrphanLock, 1, "gone"+user, a), Classifier{s}.LockProblem(OrphanLock, 0, "left."+email, ""))
		case 3: // foreign_lock
			emailOwner = "ACCT#other"
			planted = append(planted, Classifier{s}.HolderProblem(ForeignLock, 0, email, emailOwner, []string{a}))
		case 4: // duplicate_value: the previous account's username, whose lock it has
			user, userLock = fmt.Sprintf("user%d", i-1), false
			planted = append(planted, Classifier{s}.HolderProblem(DuplicateValue, 1, user, id(i-1), slices.Sorted(slices.Values([]string{id(i - 1), a}))))
		}
		if i%every == 5 { // invalid_value: a number, and no lock
			clear(scratch)
			scratch[s.PK], scratch[s.SK], scratch["email"], scratch["username"] = S(a), S(s.AccountSK), N(strconv.Itoa(i)), S(user)
			add(s.Table, scratch)
			planted = append(planted, Problem{Kind: InvalidValue, Constraint: "email", Value: N(strconv.Itoa(i)).DynamoJSON(), Accounts: []string{a}})
			emailOwner = ""
		} else {
			emit(s.PK, a, s.SK, s.AccountSK, "email", email, "username", user)
		}
		items++
		if emailOwner != "" {
			emit(s.PK, "UNIQ#EMAIL#"+email, s.SK, s.LockSK, s.OwnerAttr, emailOwner)
			items++
		}
		if userLock {
			emit(s.PK, "UNIQ#HANDLE#"+user, s.SK, s.LockSK, s.OwnerAttr, a)
			items++
		}
	}
	SortProblems(planted)
	return planted
}

// envInt reads a positive integer from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive integer", name, v)
		}
		return n
	}
	return def
}

// TestSpillHeapBounded streams synthetic items into a census with a small
// budget, with the Go runtime told the same limit (as check --max-memory
// does), and asserts that the heap stayed under the budget, that the
// census spilled, and that it found exactly the problems planted; up to a
// million items it also compares with a census in memory.
// LOCKTABLE_SPILL_ITEMS and LOCKTABLE_SPILL_MB choose the size and budget
// (30M items in 64 MB: see the README's performance section).
func TestSpillHeapBounded(t *testing.T) {
	items := envInt(t, "LOCKTABLE_SPILL_ITEMS", 600_000)
	budget := int64(envInt(t, "LOCKTABLE_SPILL_MB", 16)) << 20
	if testing.Short() && items > 600_000 {
		t.Skip("a large stream in -short")
	}
	s := DefaultSchema(LayoutSingle)
	runtime.GC()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(budget))
	stop := memtest.HeapPeak()
	start := time.Now()
	c := NewCensus(&s, 0)
	c.LimitMemory(budget)
	defer c.Close()
	planted := synthetic(&s, items, c.Add)
	got := reconciled(t, c)
	elapsed, peak := time.Since(start), stop()
	st := c.Spilled()
	verdict := "PASS"
	if peak > uint64(budget) {
		verdict = "FAIL"
	}
	// One line a benchmark script can read.
	fmt.Printf("spill: items=%d budget=%dMB peak-heap=%.1fMB spills=%d partitions=%d disk-written=%.0fMB time=%.1fs problems=%d %s\n",
		c.Scanned, budget>>20, float64(peak)/(1<<20), st.Spills, st.Partitions, float64(st.Bytes)/(1<<20), elapsed.Seconds(), len(got), verdict)
	if verdict != "PASS" {
		t.Errorf("peak heap %d bytes, over the budget of %d", peak, budget)
	}
	if st.Spills == 0 {
		t.Fatalf("%d items in %d MB: the census did not spill", c.Scanned, budget>>20)
	}
	gotJSON, plantedJSON := problemsJSON(t, got), problemsJSON(t, planted)
	if !slices.Equal(gotJSON, plantedJSON) {
		t.Fatalf("%d problems found, %d planted; first difference at %d", len(gotJSON), len(plantedJSON), firstDiff(gotJSON, plantedJSON))
	}
	if items > 1_000_000 {
		return
	}
	c.Close()
	debug.SetMemoryLimit(math.MaxInt64)
	memory := NewCensus(&s, 0)
	synthetic(&s, items, memory.Add)
	if !slices.Equal(problemsJSON(t, memory.Problems()), gotJSON) {
		t.Fatalf("in memory and spilled differ")
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSpillEstimate: what a census estimates it holds is about the heap
// it keeps alive, and not far above it (a spill too early costs disk
// writes, too late breaks the budget).
func TestSpillEstimate(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	for _, n := range []int{50_000, 200_000, 400_000} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := NewCensus(&s, 0)
		synthetic(&s, n, c.Add) // what it planted is garbage: not the census's
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		estimate := c.size()
		t.Logf("%d items: estimate %d, live heap %d (%.2f)", n, estimate, live, float64(estimate)/float64(live))
		// The census counts what it holds exactly (capacities, not
		// lengths); the invalid values it keeps apart, which no spill
		// could free, are the little it does not count.
		if float64(estimate) < 0.95*float64(live) || estimate > 2*live {
			t.Errorf("%d items: the census estimates %d bytes, keeps %d alive", n, estimate, live)
		}
		runtime.KeepAlive(c)
	}
}

// TestSpillFailures: a census that cannot spill stops recording and says
// why, and a partition file cut short is an error, never fewer problems.
func TestSpillFailures(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	rows := randomRows(rand.New(rand.NewPCG(3, 3)), &s, 100)

	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	c := spillingCensus(&s)
	for _, r := range rows {
		c.Add(r.table, r.item)
	}
	if c.Err() == nil || c.Scanned != 1 {
		t.Errorf("no temporary directory: err %v after %d items, want an error after the first", c.Err(), c.Scanned)
	}
	if _, err := c.Reconcile(); err == nil {
		t.Errorf("a census that could not spill reconciled")
	}

	t.Setenv("TMPDIR", t.TempDir())
	c = spillingCensus(&s)
	defer c.Close()
	for _, r := range rows {
		c.Add(r.table, r.item)
	}
	if err := c.readable(); err != nil {
		t.Fatal(err)
	}
	cut := c.spill.files.Path(0)
	info, err := os.Stat(cut)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(cut, info.Size()-1); err != nil {
		t.Fatal(err)
	}
	if ps, err := c.Reconcile(); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("a partition cut short: %d problems, err %v", len(ps), err)
	}
	c.Close()
	if _, err := c.Reconcile(); !errors.Is(err, errClosed) {
		t.Errorf("reconciled after Close: %v", err)
	}
}

// TestSpillFileGone: a partition file removed under a census that wrote to
// it is an error when reconciled, never a partition of no value.
func TestSpillFileGone(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := DefaultSchema(LayoutSingle)
	c := spillingCensus(&s)
	defer c.Close()
	for _, r := range randomRows(rand.New(rand.NewPCG(2, 2)), &s, 50) {
		c.Add(r.table, r.item)
	}
	if err := c.readable(); err != nil {
		t.Fatal(err)
	}
	removed := false
	for i := range c.spill.files.Len() {
		if !removed {
			removed = os.Remove(c.spill.files.Path(i)) == nil
		}
	}
	if !removed {
		t.Fatal("no partition file to remove")
	}
	if _, err := c.Reconcile(); err == nil || !strings.Contains(err.Error(), "read back the census") {
		t.Errorf("a partition file gone: Reconcile() error %v, want one", err)
	}
}
