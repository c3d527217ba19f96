package items

import (
	"testing"

	"github.com/locktable/locktable/model"
)

// TestOwnForgetsWhatWasNotWritten: a reclaim notes its claim and both of
// its possible last steps (the lock deleted, or given back ownerless).
// Cancelled, it wrote none of them: kept, they took someone else's later
// delete of that lock, or ownerless rewrite, for this session's (the
// change unmarked, an open dialog not told). Forgotten, they are others'.
func TestOwnForgetsWhatWasNotWritten(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	pl := model.Planner{Schema: &sc}
	r := model.Reclaim{Constraint: 0, Value: "x@y", Claim: "locktable:reclaim:tok"}
	step3 := pl.DeleteClaimed(r)
	claim := model.Action{Kind: model.ActUpdate, Table: step3.Table, Key: step3.Key, Set: map[string]model.Value{sc.OwnerAttr: model.S(r.Claim)}}
	p := model.Plan{Operation: "repair", Reclaim: &r, Actions: []model.Action{claim}}
	keys := model.KeyItem(step3.Key)
	del := model.Change{Event: model.ChangeRemove, Table: step3.Table, Keys: keys, Old: keys}
	ownerless := model.Change{Event: model.ChangeModify, Table: step3.Table, Keys: keys, New: keys, Old: keys}

	var own Own
	own.Sending(pl.Footprints(p, "tok"))
	if len(own.Theirs([]model.Change{del})) != 0 {
		t.Fatal("a delete of the lock the reclaim was sent for is not taken for its last step")
	}
	for _, ch := range []model.Change{del, ownerless} {
		var own Own
		own.Sending(pl.Footprints(p, "tok"))
		own.Forget("tok", false) // cancelled: nothing written
		if len(own.Theirs([]model.Change{ch})) != 1 {
			t.Errorf("after the reclaim was cancelled, someone else's %s of its lock is taken for the session's", ch.Event)
		}
	}
	// Claimed, then its last step failed: the claim's record is still
	// the session's, the last steps are not.
	own = Own{}
	own.Sending(pl.Footprints(p, "tok"))
	own.Forget("tok", true)
	claimed := model.Change{Event: model.ChangeModify, Table: step3.Table, Keys: keys, New: model.Item{"PK": keys["PK"], "SK": keys["SK"], sc.OwnerAttr: model.S(r.Claim)}}
	if len(own.Theirs([]model.Change{claimed})) != 0 || len(own.Theirs([]model.Change{del})) != 1 {
		t.Error("a claim left: its record is not the session's, or a later delete is")
	}
}
