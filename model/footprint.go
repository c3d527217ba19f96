package model

// A Footprint is what one write action of the session leaves on an item:
// the stream's record of that item is the session's own when its new
// image carries what the action wrote (a Put's whole item, an Update's
// SET, none of its REMOVE), or it is a REMOVE for a Delete. Telling the
// session's writes from someone else's by what a record carries, not by
// when it comes, keeps a record that comes late (the result read for a
// while first) from being marked as another's, and one another writer
// made in the moment after from passing as the session's.
type Footprint struct {
	// Write names the write (its token) the action belongs to; Alt marks
	// one of a reclaim's two possible last steps, of which one is sent.
	Write string
	Alt   bool
	Ref   KeyRef
	Gone  bool     // the action deletes the item
	Has   Item     // attributes the new image carries as written
	Lacks []string // attributes the new image does not carry
}

// Footprints are the footprints of the write p sent with token: one for
// each item it puts, updates or deletes and, for a reclaim, both of its
// possible last steps (the lock deleted, or its claim taken back), which
// Execute plans only once it has looked for holders.
func (s Planner) Footprints(p Plan, token string) []Footprint {
	var fs []Footprint
	add := func(a Action, alt bool) {
		f := Footprint{Write: token, Alt: alt, Ref: KeyRef{Table: a.Table, Key: a.Key}}
		switch a.Kind {
		case ActPut:
			f.Has = a.Item
		case ActUpdate:
			f.Has, f.Lacks = Item(a.Set), a.Remove
		case ActDelete:
			f.Gone = true
		default:
			return
		}
		fs = append(fs, f)
	}
	if p.Reclaim == nil || !p.Reclaim.Resume { // resuming, step 3 is all it sends
		for _, a := range p.Actions {
			add(a, false)
		}
	}
	if r := p.Reclaim; r != nil {
		add(s.DeleteClaimed(*r), true)
		add(s.GiveBack(*r), true)
	}
	return fs
}

// Left reports whether the record c is the one the footprint's action
// left. Without images (a stream of keys only) the event alone tells: a
// REMOVE for a delete, any other for a put or an update.
func (f Footprint) Left(c Change) bool {
	if f.Gone || c.Event == ChangeRemove {
		return f.Gone && c.Event == ChangeRemove
	}
	if c.New == nil {
		return c.Old == nil
	}
	for name, v := range f.Has {
		got, ok := c.New[name]
		if !ok || got.DynamoJSON() != v.DynamoJSON() {
			return false
		}
	}
	for _, name := range f.Lacks {
		if _, ok := c.New[name]; ok {
			return false
		}
	}
	return true
}
