// Package detail shows one item in full as DynamoDB JSON, scrollable. It
// reads the item itself, consistently, when it is opened, so what it shows
// is the item as it is now, not as a page listed it. Asked to, it lists
// under the item the other items of its partition, a Query page at a time.
package detail

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
)

// Reader reads items by key with strongly consistent reads, and the
// items under one partition key of the account table a page at a time.
type Reader interface {
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
	PartitionPage(ctx context.Context, pk string, from backend.Cursor, want int) (backend.ItemPage, error)
}

// OpenMsg asks for a detail: the item at Read (when set), read now and
// rendered by Render, under Title. Render(nil) says what to show when the
// item is gone, or when there is nothing to read. Title and every line
// must already be printable.
type OpenMsg struct {
	Title  string
	Read   *model.KeyRef
	Render func(model.Item) []string
	// Partition, when set with Read, lists the other items under a
	// partition key below the item.
	Partition *Partition
}

// Partition asks the detail to list the items under partition key value
// PK, read with the item and then a page at a time (More).
type Partition struct {
	PK string
	// Lines renders the items read so far, more saying whether pages are
	// left to read; every line must be printable.
	Lines func(items []model.Item, more bool) []string
}

// PartitionPageSize is how many items of a partition one page reads.
const PartitionPageSize = 50

// reqID numbers reads, so that a read made stale by a later key is dropped.
type reqID int

// ItemMsg answers a read: the item and the first page of its partition,
// or (next) a later page of the partition.
type ItemMsg struct {
	req  reqID
	item model.Item
	err  error
	next bool
	part backend.ItemPage
}

// Model is the detail view: a title and scrollable text.
type Model struct {
	ctx     context.Context
	reader  Reader
	req     reqID
	pending OpenMsg // the detail being read, or shown
	shown   bool
	// opened numbers Opens: a page of the partition answers the detail
	// that asked for it, whatever keys came since (Drop leaves it).
	opened reqID
	item   model.Item // the item shown
	// part names the partition's items read so far in the item cache,
	// partNext where it goes on; partLoading while a page is read.
	items       *items.Cache
	part        []string
	partNext    backend.Cursor
	partLoading bool
	err         error
	Title       string
	km          KeyMap
	vp          viewport.Model
	lines       []string // as rendered, wrapped to the width when shown
}

// New returns a closed detail view reading through reader, keeping the
// partitions it reads in c.
func New(ctx context.Context, reader Reader, c *items.Cache, km KeyMap) Model {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{
		PageDown:     km.PageDown,
		PageUp:       km.PageUp,
		HalfPageUp:   key.NewBinding(key.WithDisabled()),
		HalfPageDown: key.NewBinding(key.WithDisabled()),
		Up:           km.Up,
		Down:         km.Down,
		Left:         km.Left,
		Right:        km.Right,
	}
	return Model{ctx: ctx, reader: reader, items: c, km: km, vp: vp}
}

// KeyMap returns the detail's bindings as they work now, for help: More
// only while the partition has pages left.
func (m Model) KeyMap() KeyMap {
	km := m.km
	km.More.SetEnabled(m.more())
	return km
}

// more reports whether the partition shown has pages left to read.
func (m Model) more() bool { return m.shown && m.pending.Partition != nil && !m.partNext.Done() }

// Open shows what msg asks for: at once when there is nothing to read,
// otherwise once the read answers.
func (m Model) Open(msg OpenMsg) (Model, tea.Cmd) {
	m.req++
	m.opened++
	m.err = nil
	m.part, m.partNext, m.partLoading = nil, backend.End(), false
	if msg.Read == nil {
		msg.Partition = nil
		m.pending, m.item = msg, nil
		m.show(msg.Title, msg.Render(nil))
		return m, nil
	}
	m.pending = msg
	ctx, reader, req, ref, part := m.ctx, m.reader, m.req, *msg.Read, msg.Partition
	return m, func() tea.Msg {
		var found model.Item
		err := reader.ReadConsistent(ctx, []model.KeyRef{ref}, func(_ string, it model.Item) { found = it })
		msg := ItemMsg{req: req, item: found, err: err, part: backend.ItemPage{Next: backend.End()}}
		if err == nil && part != nil {
			msg.part, msg.err = reader.PartitionPage(ctx, part.PK, backend.Cursor{}, PartitionPageSize)
		}
		return msg
	}
}

// readMore asks for the partition's next page.
func (m Model) readMore() (Model, tea.Cmd) {
	if !m.more() || m.partLoading {
		return m, nil
	}
	m.partLoading = true
	ctx, reader, opened, pk, from := m.ctx, m.reader, m.opened, m.pending.Partition.PK, m.partNext
	return m, func() tea.Msg {
		page, err := reader.PartitionPage(ctx, pk, from, PartitionPageSize)
		return ItemMsg{req: opened, next: true, part: page, err: err}
	}
}

// render renders the item shown and the partition read so far.
func (m Model) render() []string {
	lines := m.pending.Render(m.item)
	if p := m.pending.Partition; p != nil {
		more := !m.partNext.Done()
		part := make([]model.Item, len(m.part))
		for i, k := range m.part {
			part[i] = m.items.Item(k)
		}
		lines = append(lines, p.Lines(part, more)...)
		if more {
			h := m.km.More.Help()
			lines = append(lines, "  … more below: "+h.Key+" reads the next "+rows.Count(PartitionPageSize))
		}
	}
	return lines
}

// Reread reads the item shown again (r), when it was read: the detail
// shows it as it is now.
func (m Model) Reread() (Model, tea.Cmd) {
	if !m.shown || m.pending.Read == nil {
		return m, nil
	}
	return m.Open(m.pending)
}

// Drop makes a read in flight stale: the user has moved on.
func (m *Model) Drop() { m.req++ }

// Close hides the detail.
func (m *Model) Close() { m.shown = false }

// Shown reports whether the detail is open.
func (m Model) Shown() bool { return m.shown }

// Missing reports whether the detail shows a key that no item has (a
// missing lock's): it read the key and found nothing.
func (m Model) Missing() bool { return m.shown && m.pending.Read != nil && m.item == nil }

// Err is the error of the last read, if it failed.
func (m Model) Err() error { return m.err }

// ClearErr forgets a failed read.
func (m *Model) ClearErr() { m.err = nil }

func (m *Model) show(title string, lines []string) {
	m.Title, m.shown, m.lines = title, true, lines
	m.vp.SetContentLines(rows.Wrap(lines, m.vp.Width()))
	m.vp.GotoTop()
}

// onItem shows what a read answered: the item and its partition's first
// page, or a later page below what is shown, where the text stays.
func (m *Model) onItem(msg ItemMsg) {
	switch {
	case msg.next && (msg.req != m.opened || !m.shown):
	case msg.next:
		m.partLoading = false
		if m.err = msg.err; msg.err != nil {
			return
		}
		m.part, m.partNext = m.keep(m.part, msg.part.Items), msg.part.Next
		m.lines = m.render()
		m.vp.SetContentLines(rows.Wrap(m.lines, m.vp.Width()))
	case msg.req != m.req:
	case msg.err != nil:
		m.err = msg.err
	default:
		m.item, m.part, m.partNext = msg.item, m.keep(nil, msg.part.Items), msg.part.Next
		m.show(m.pending.Title, m.render())
	}
}

// SetSize sets the text area's size in cells; the text is wrapped again
// between words.
func (m *Model) SetSize(w, h int) {
	m.vp.SetWidth(w)
	m.vp.SetHeight(h)
	m.vp.SetContentLines(rows.Wrap(m.lines, w))
}

// Update shows an item read for it, scrolls, and closes.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case ItemMsg:
		m.onItem(msg)
		return m, nil
	case tea.KeyPressMsg:
		if key.Matches(msg, m.km.Close) {
			m.shown = false
			return m, nil
		}
		if key.Matches(msg, m.km.More) {
			return m.readMore()
		}
		switch {
		case key.Matches(msg, m.km.Top):
			m.vp.GotoTop()
			return m, nil
		case key.Matches(msg, m.km.Bottom):
			m.vp.GotoBottom()
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.vp, cmd = m.vp.Update(msg)
	return m, cmd
}

// View renders the visible text.
func (m Model) View() string { return m.vp.View() }

// ItemLines renders an item as indented DynamoDB JSON, one line each.
// Strings are shown through model.Printable rather than JSON escaping:
// encoding/json would pass bidi overrides through raw and turn invalid
// UTF-8 into U+FFFD, where a person needs to see \x1b, \xff and \u202e.
func ItemLines(it model.Item) []string {
	var lines []string
	writeMap(&lines, "", "", it, "")
	return lines
}

// writeMap appends a map of attributes, opened after prefix and closed
// with suffix.
func writeMap(lines *[]string, indent, prefix string, m map[string]model.Value, suffix string) {
	if len(m) == 0 {
		*lines = append(*lines, indent+prefix+"{}"+suffix)
		return
	}
	*lines = append(*lines, indent+prefix+"{")
	names := model.Item(m).SortedNames()
	for i, name := range names {
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		writeValue(lines, indent+"  ", model.Quote(name)+": ", m[name], sep)
	}
	*lines = append(*lines, indent+"}"+suffix)
}

// writeValue appends one value as {"TYPE": ...}.
func writeValue(lines *[]string, indent, prefix string, v model.Value, suffix string) {
	tag := model.Quote(v.Kind.String()) + ": "
	switch v.Kind {
	case model.KindS, model.KindN:
		*lines = append(*lines, indent+prefix+"{"+tag+model.Quote(v.S)+"}"+suffix)
	case model.KindM:
		*lines = append(*lines, indent+prefix+"{")
		writeMap(lines, indent+"  ", tag, v.Map, "")
		*lines = append(*lines, indent+"}"+suffix)
	case model.KindL:
		if len(v.List) == 0 {
			*lines = append(*lines, indent+prefix+"{"+tag+"[]}"+suffix)
			return
		}
		*lines = append(*lines, indent+prefix+"{"+tag+"[")
		for i, e := range v.List {
			sep := ","
			if i == len(v.List)-1 {
				sep = ""
			}
			writeValue(lines, indent+"  ", "", e, sep)
		}
		*lines = append(*lines, indent+"]}"+suffix)
	case model.KindSS, model.KindNS:
		q := make([]string, len(v.Strings))
		for i, s := range v.Strings {
			q[i] = model.Quote(s)
		}
		*lines = append(*lines, indent+prefix+"{"+tag+"["+strings.Join(q, ", ")+"]}"+suffix)
	default: // B, BS, BOOL, NULL: nothing from the table reaches the screen raw
		*lines = append(*lines, indent+prefix+v.DynamoJSON()+suffix)
	}
}

// keep puts the items of a partition's page in the cache and adds their
// names to names.
func (m Model) keep(names []string, page []model.Item) []string {
	for _, it := range page {
		names = append(names, m.items.PutItem(it))
	}
	return names
}
