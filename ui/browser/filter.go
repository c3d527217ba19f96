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

// Appending is a Source that changes only by rows added at its end, but
// when its rows are replaced whole, which changes its Generation: a kept
// filter then judges only the rows a page adds, not every row again.
type Appending interface {
	Generation() int
}

// filter is the rows a filter keeps: the source's rows that match q, and
// the headings above them. judged is the source's length when they were
// judged (and generation its Generation, for an Appending source): a
// source that grew or shrank since is judged again, only the rows added
// when it is Appending and of the same generation.
type filter struct {
	q          string
	shown      []int
	matched    int // rows of shown that matched (headings aside)
	rows       int // the source's rows, headings aside, when judged
	judged     int
	generation int
	group      group // where the last row judged left off, for the rows added after it
}

// group is the group the filter's judging stopped in: its headings, not
// shown until a row under them is kept; inRows says a row came after
// them, kept that one was kept (the headings are shown).
type group struct {
	headings     []int
	inRows, kept bool
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
// the next kept row is; while a filter keeps nothing, the row selected
// before is remembered (home), and selected again once rows are shown. Typing on to a filter narrows the rows it kept,
// so each key judges fewer rows.
func (m *Model) SetFilter(q string) {
	q = strings.ToLower(strings.TrimSpace(q))
	i := m.home // not the cursor, which a filter keeping nothing left on row 0
	old := m.filter
	switch {
	case q == "":
		m.filter = filter{}
	case old.on() && old.judged == m.src.Len() && old.generation == m.generation() && strings.Contains(q, old.q):
		m.filter = m.judge(q, old.shown)
		m.filter.rows = old.rows
		if !old.group.kept {
			// The last group's headings are not among the rows old kept:
			// the narrowed filter stops in that group all the same.
			m.filter.group = old.group
		}
	default:
		m.filter = m.judge(q, nil)
	}
	m.cursor = m.pos(i)
	m.clamp()
	m.skipHeadings(+1)
	if m.n() > 0 {
		m.home = m.Cursor() // what is selected now; kept while nothing is
	}
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

// Shown is the source rows shown, in order: every row, or those the
// filter keeps and their headings.
func (m *Model) Shown() []int {
	m.sync()
	rows := make([]int, m.n())
	for p := range rows {
		rows[p] = m.row(p)
	}
	return rows
}

// generation is the source's Generation, 0 when it is not Appending.
func (m *Model) generation() int {
	if a, ok := m.src.(Appending); ok {
		return a.Generation()
	}
	return 0
}

// sync judges the rows again when the source changed under the filter (a
// page came, rows were pinned or removed): only the rows a page added
// when the source says the others are as they were.
func (m *Model) sync() {
	if !m.filter.on() {
		return
	}
	n, gen := m.src.Len(), m.generation()
	_, appending := m.src.(Appending)
	switch {
	case appending && gen == m.filter.generation && n > m.filter.judged:
		m.filter.judge(m.src, m.filter.judged, n, nil)
	case m.filter.judged != n || gen != m.filter.generation:
		m.filter = m.judge(m.filter.q, nil)
	}
}

// judge keeps the rows of from (nil: every row) that match q, with the
// headings of their groups.
func (m *Model) judge(q string, from []int) filter {
	f := filter{q: q, shown: []int{}, generation: m.generation()}
	n := len(from)
	if from == nil {
		n = m.src.Len()
	}
	f.judge(m.src, 0, n, from)
	f.judged = m.src.Len()
	return f
}

// judge goes on judging rows from k to n of from (nil: source rows k to
// n): a row is kept when it matches, and with it the headings of its
// group (a run of headings and the rows up to the next heading).
func (f *filter) judge(src Source, k, n int, from []int) {
	f.judged = n
	match, ok := src.(Matcher)
	if !ok {
		return
	}
	h, _ := src.(Headings)
	g := &f.group
	for ; k < n; k++ {
		i := k
		if from != nil {
			i = from[k]
		}
		if h != nil && h.Heading(i) {
			if g.inRows { // a new group
				g.headings, g.inRows, g.kept = g.headings[:0], false, false
			}
			g.headings = append(g.headings, i)
			continue
		}
		g.inRows = true
		f.rows++
		if !match.Match(i, f.q) {
			continue
		}
		if !g.kept {
			f.shown = append(f.shown, g.headings...)
			g.kept = true
		}
		f.shown = append(f.shown, i)
		f.matched++
	}
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
