package items

import (
	"slices"

	"github.com/locktable/locktable/model"
)

// Own are the footprints of the writes this session sent, by their item's
// LockKey, each until the stream's record of it comes (Theirs): what tells
// the session's own writes from someone else's (issue 38, 5).
type Own struct {
	own map[string][]model.Footprint
	// order is the keys of own, oldest first, to bound them.
	order []string
}

// maxOwn bounds the items with footprints kept: a write whose record
// never comes (it was cancelled, or the stream is not followed) leaves
// its footprints until this many newer ones push them out.
const maxOwn = 10000

// Sending notes the footprints of a write this session is about to send
// (model.Planner.Footprints): the stream's records that carry them are
// the session's own, whenever they come, and are not marked.
func (c *Own) Sending(fs []model.Footprint) {
	if c.own == nil {
		c.own = map[string][]model.Footprint{}
	}
	for _, f := range fs {
		k := LockKey(f.Ref.Table, f.Ref.Key)
		if len(c.own[k]) == 0 {
			c.order = append(c.order, k)
		}
		c.own[k] = append(c.own[k], f)
	}
	for len(c.order) > maxOwn {
		delete(c.own, c.order[0])
		c.order = c.order[1:]
	}
}

// Theirs returns the changes of the stream that this session's writes did
// not leave: each record that carries a footprint (Sending) takes it, and
// a reclaim's other possible last step with it; the rest are someone
// else's.
func (c *Own) Theirs(changes []model.Change) []model.Change {
	var theirs []model.Change
	for _, ch := range changes {
		key := map[string]string{}
		for name, v := range ch.Keys {
			key[name] = v.S
		}
		k := LockKey(ch.Table, key)
		fs := c.own[k]
		i := slices.IndexFunc(fs, func(f model.Footprint) bool { return f.Left(ch) })
		if i < 0 {
			theirs = append(theirs, ch)
			continue
		}
		left := fs[i]
		fs = slices.Delete(slices.Clone(fs), i, i+1)
		if left.Alt {
			fs = slices.DeleteFunc(fs, func(f model.Footprint) bool { return f.Alt && f.Write == left.Write })
		}
		if len(fs) == 0 {
			delete(c.own, k)
			c.order = slices.DeleteFunc(c.order, func(o string) bool { return o == k })
		} else {
			c.own[k] = fs
		}
	}
	return theirs
}

// Forget drops the footprints of write (its token) whose records will
// not come: a write that certainly did not apply wrote nothing (all of
// them), and a reclaim whose claim committed but whose last step did not
// leaves its two possible last steps unwritten (alts). Kept, they would
// take someone else's later write of the same items for this session's.
func (c *Own) Forget(write string, alts bool) {
	for k, fs := range c.own {
		fs = slices.DeleteFunc(fs, func(f model.Footprint) bool { return f.Write == write && (f.Alt || !alts) })
		if len(fs) == 0 {
			delete(c.own, k)
			c.order = slices.DeleteFunc(c.order, func(o string) bool { return o == k })
		} else {
			c.own[k] = fs
		}
	}
}
