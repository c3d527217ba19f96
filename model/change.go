package model

import "time"

// ChangeEvent is what a write did to an item, as a table's stream names it.
type ChangeEvent string

// The events of a stream record.
const (
	ChangeInsert ChangeEvent = "INSERT"
	ChangeModify ChangeEvent = "MODIFY"
	ChangeRemove ChangeEvent = "REMOVE"
	// ChangeRecheck is no stream record: a watch that resumed over a gap
	// in the stream read the problems it knew again, and what it found
	// is laid at that reading, not at a write.
	ChangeRecheck ChangeEvent = "RECHECK"
)

// Change is one write to one item, as the table's stream reported it.
type Change struct {
	Event ChangeEvent
	Table string
	// Keys are the item's key attributes.
	Keys Item
	// Sequence is the record's sequence number in its shard: decimal
	// digits, growing with the writes to the item's partition.
	Sequence string
	// At is when the write was made, to the second or so (the stream's
	// ApproximateCreationDateTime).
	At time.Time
	// Old and New are the item before and after the write, where the
	// stream's view type carries them (nil otherwise, and for the side
	// that does not exist: Old of an INSERT, New of a REMOVE).
	Old, New Item
}

// Image is the item as the change shows it, the new image before the old,
// else its keys alone.
func (c Change) Image() Item {
	switch {
	case c.New != nil:
		return c.New
	case c.Old != nil:
		return c.Old
	}
	return c.Keys
}

// SameProblem reports whether p and q are about the same thing (the kind,
// the constraint and the value; for an invalid value, its account or
// lock too): the identity by which a check confirms a candidate, and a
// watch tells a problem that is still there from one that appeared.
func SameProblem(p, q Problem) bool { return p.same(q) }
