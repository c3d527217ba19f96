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
