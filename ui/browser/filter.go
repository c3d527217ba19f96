package browser

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Matcher is a Source whose rows a filter can judge.
type Matcher interface {
	// Match reports whether row i shows q, which is in lower case and not
	// empty. Headings are not asked: one is shown when a row under it is.
	Match(i int, q string) bool
}

// filter is the rows a filter keeps: the source's rows that match q, and
// the headings above them. judged is the source's length when they were
// judged: a source that grew or shrank since is judged again.
type filter struct {
	q       string
	shown   []int
	matched int // rows of shown that matched (headings aside)
	rows    int // the source's rows, headings aside, when judged
	judged  int
}

func (f *filter) on() bool { return f.q != "" }

// n is how many rows are shown.
func (m *Model) n() int {
	if !m.filter.on() {
		return m.src.Len()
	}
	return len(m.filter.shown)
}

// row is the source row at position p among those shown.
func (m *Model) row(p int) int {
	if !m.filter.on() {
		return p
	}
	if p < 0 || p >= len(m.filter.shown) {
		return 0
	}
	return min(m.filter.shown[p], max(m.src.Len()-1, 0))
}

// pos is the position among those shown of source row i, or of the first
// row shown after it.
func (m *Model) pos(i int) int {
	if !m.filter.on() {
		return i
	}
	return sort.SearchInts(m.filter.shown, i)
}

// SetFilter shows only the rows that contain q, ignoring case (the
// source must be a Matcher), and the headings of their groups; "" shows
// every row again. The selected row stays selected if it is kept, else
// the next kept row is. Typing on to a filter narrows the rows it kept,
// so each key judges fewer rows.
func (m *Model) SetFilter(q string) {
	q = strings.ToLower(strings.TrimSpace(q))
	i := m.Cursor()
	old := m.filter
	switch {
	case q == "":
		m.filter = filter{}
	case old.on() && old.judged == m.src.Len() && strings.Contains(q, old.q):
		m.filter = m.judge(q, old.shown)
		m.filter.rows = old.rows
	default:
		m.filter = m.judge(q, nil)
	}
	m.cursor = m.pos(i)
	m.clamp()
	m.skipHeadings(+1)
}

// Filter is the filter in force, in lower case ("" for none).
func (m Model) Filter() string { return m.filter.q }

// Matched is how many rows the filter keeps of how many there are,
// headings aside (0 of 0 when there is no filter).
func (m Model) Matched() (kept, of int) { return m.filter.matched, m.filter.rows }

// Pos is the selected row's position among those shown.
func (m Model) Pos() int { return m.cursor }

// Len is how many rows are shown: the source's, or those the filter keeps
// and their headings.
func (m Model) Len() int { return m.n() }

// sync judges the rows again when the source grew or shrank under the
// filter (a page came, rows were pinned or removed).
func (m *Model) sync() {
	if m.filter.on() && m.filter.judged != m.src.Len() {
		m.filter = m.judge(m.filter.q, nil)
	}
}

// judge keeps the rows of from (nil: every row) that match q, with the
// headings of their groups: a group is a run of headings and the rows up
// to the next heading.
func (m *Model) judge(q string, from []int) filter {
	f := filter{q: q, shown: []int{}, judged: m.src.Len()}
	match, ok := m.src.(Matcher)
	if !ok {
		return f
	}
	h, _ := m.src.(Headings)
	var headings []int
	inRows, kept := false, false
	n := len(from)
	if from == nil {
		n = m.src.Len()
	}
	for k := range n {
		i := k
		if from != nil {
			i = from[k]
		}
		if h != nil && h.Heading(i) {
			if inRows { // a new group
				headings, inRows, kept = headings[:0], false, false
			}
			headings = append(headings, i)
			continue
		}
		inRows = true
		f.rows++
		if !match.Match(i, q) {
			continue
		}
		if !kept {
			f.shown = append(f.shown, headings...)
			kept = true
		}
		f.shown = append(f.shown, i)
		f.matched++
	}
	return f
}

// Contains reports whether s contains q, ignoring case; q is in lower
// case (Matcher's). It allocates only for text that is not ASCII.
func Contains(s, q string) bool {
	if hasMultibyte(s) {
		return strings.Contains(strings.ToLower(s), q)
	}
	for i := 0; i+len(q) <= len(s); i++ {
		j := 0
		for j < len(q) && lower(s[i+j]) == q[j] {
			j++
		}
		if j == len(q) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func hasMultibyte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// ContainsJoined is Contains(a+b, q) without joining them: a lock's key
// is its prefix and its value.
func ContainsJoined(a, b, q string) bool {
	if Contains(a, q) || Contains(b, q) {
		return true
	}
	if hasMultibyte(a) || hasMultibyte(b) {
		return strings.Contains(strings.ToLower(a+b), q)
	}
	for k := 1; k < len(q); k++ { // q[:k] ends a, q[k:] starts b
		if k <= len(a) && len(q)-k <= len(b) && Contains(a[len(a)-k:], q[:k]) && Contains(b[:len(q)-k], q[k:]) {
			return true
		}
	}
	return false
}
