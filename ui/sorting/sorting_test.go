package sorting

import (
	"slices"
	"testing"
)

// TestSortIsStableExactAndPutsNoKeyLast: text by its bytes (upper case
// before lower, as stored), numbers as numbers (9 before 10), rows with
// no key last both ways, and rows of equal keys in the order given.
func TestSortIsStableExactAndPutsNoKeyLast(t *testing.T) {
	type row struct {
		name string
		key  Key
	}
	rows := []row{{"b1", Text("b")}, {"none1", None}, {"B", Text("B")}, {"a", Text("a")}, {"b2", Text("b")}, {"none2", None}}
	for _, c := range []struct {
		desc bool
		want []string
	}{
		{false, []string{"B", "a", "b1", "b2", "none1", "none2"}},
		{true, []string{"b1", "b2", "a", "B", "none1", "none2"}},
	} {
		got := slices.Clone(rows)
		Sort(got, func(r row) Key { return r.key }, c.desc)
		var names []string
		for _, r := range got {
			names = append(names, r.name)
		}
		if !slices.Equal(names, c.want) {
			t.Errorf("desc %v: %v, want %v", c.desc, names, c.want)
		}
	}
	nums := []int64{10, 9, 100, -1}
	Sort(nums, Number, false)
	if !slices.Equal(nums, []int64{-1, 9, 10, 100}) {
		t.Errorf("numbers sorted %v", nums)
	}
}

// TestOrderSteps: the sort key steps through the columns then back to
// none, each step ascending; reverse flips, and with none sorts by the
// first column descending.
func TestOrderSteps(t *testing.T) {
	o := New("key", "owner")
	var said []string
	for range 3 {
		o.Next()
		said = append(said, o.Said())
	}
	want := []string{"sorted by key ↑", "sorted by owner ↑", "not sorted: as read"}
	if !slices.Equal(said, want) {
		t.Errorf("steps %q, want %q", said, want)
	}
	o.Reverse()
	if o.Said() != "sorted by key ↓" {
		t.Errorf("reverse from none: %q", o.Said())
	}
	o.Reverse()
	if o.Said() != "sorted by key ↑" {
		t.Errorf("reverse again: %q", o.Said())
	}
}

// TestOrderSaysAColumnPrintable: a column is an attribute the schema
// names, which may hold a control character: said escaped.
func TestOrderSaysAColumnPrintable(t *testing.T) {
	o := New("e\x1b[2Jmail")
	o.Next()
	if got, want := o.Said(), `sorted by e\x1b[2Jmail ↑`; got != want {
		t.Errorf("Said %q, want %q", got, want)
	}
}

// TestSortedMergesAsASortWould: rows added a page at a time, some read
// again with new keys, some dropped, come out as one stable sort of the
// rows as they are now would put them, both ways.
func TestSortedMergesAsASortWould(t *testing.T) {
	for _, desc := range []bool{false, true} {
		keys := map[int]Key{}
		key := func(r int) Key { return keys[r] }
		var read []int
		var s Sorted[int]
		s.Set(nil, key, desc)
		for page := range 20 {
			var rows []int
			for i := range 7 {
				r := page*7 + i
				switch r % 5 {
				case 0:
					keys[r] = None
				case 1:
					keys[r] = Number(int64(r * 7919 % 13))
				default:
					keys[r] = Text(string(rune('a' + r*31%7)))
				}
				rows = append(rows, r)
			}
			read = append(read, rows...)
			s.Add(rows, key)
			if page%4 == 3 { // read again, changed
				again := []int{read[page], read[len(read)/2]}
				for _, r := range again {
					keys[r] = Text("c")
				}
				s.Rekey(again, key)
			}
			if page%6 == 5 {
				gone := func(r int) bool { return r%11 == page%11 }
				s.Drop(gone)
				read = slices.DeleteFunc(read, gone)
			}
			want := slices.Clone(read)
			Sort(want, key, desc)
			if got := s.Rows(nil); !slices.Equal(got, want) {
				t.Fatalf("desc %v, page %d: %v, want %v", desc, page, got, want)
			}
		}
	}
}

// BenchmarkSortedPages reads 100,000 rows in pages of 50 into a Sorted,
// in an order unlike the sort's: each page is merged in, not the whole
// sorted again (at each page the whole was sorted, this took minutes).
func BenchmarkSortedPages(b *testing.B) {
	key := func(r int) Key { return Number(int64(r * 7919 % 100_000)) }
	for b.Loop() {
		var s Sorted[int]
		s.Set(nil, key, false)
		page := make([]int, 50)
		for p := range 2000 {
			for i := range page {
				page[i] = p*50 + i
			}
			s.Add(page, key)
		}
	}
}

// TestRekeySaysWhetherARowMoved: rows read again that sort as they did
// (a poll's, most often) move nothing, so the view is not reordered.
func TestRekeySaysWhetherARowMoved(t *testing.T) {
	keys := map[string]Key{"a": Text("a"), "b": Text("b"), "c": Text("c")}
	key := func(r string) Key { return keys[r] }
	var s Sorted[string]
	s.Set([]string{"c", "a", "b"}, key, false)
	if s.Rekey([]string{"a", "b"}, key) {
		t.Error("rows read again with their keys as they were: said to move")
	}
	keys["a"] = Text("z")
	if !s.Rekey([]string{"a"}, key) {
		t.Error("a row whose key changed: said not to move")
	}
	if got := s.Rows(nil); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Errorf("after the rekey the rows are %v, want [b c a]", got)
	}
}
