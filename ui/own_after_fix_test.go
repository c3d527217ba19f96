package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
)

// TestOthersWriteAfterOurFixIsJudged (found by
// TestTheScreenAgreesWithTheTable at full scale): a foreign lock fixed
// (f), then someone else hands it to another owner. The fix's own
// judgement dropped the problem from the report, but the follow's tracker
// still knew it, so the stream's record made nothing appear: the header
// and the locks view said the lock was fine. The tracker is told what a
// fix's reads found (live.Model.Rejudged), and the lock is foreign again.
func TestOthersWriteAfterOurFixIsJudged(t *testing.T) {
	t.Parallel()
	b, f := fakePlanted(), make(feed, 4)
	d := liveDriver(t, b, f, clock.Clock{})
	d.press("3")
	d.selectRow("UNIQ#EMAIL#carol@x.io")
	d.press("f")
	waitScreen(d, "the preview", "type ACCT#z9 to send")
	d.typeText("ACCT#z9")
	d.press("enter")
	d.until("the result", func(m *Model) bool { return m.layers.write.Stage() == dialog.StageResult })
	t.Logf("%s", d.screen())
	d.press("enter")
	ours, _ := b.Item(tablePlaceholder, map[string]string{"PK": "UNIQ#EMAIL#carol@x.io", "SK": "LOCK"})
	t.Logf("after the fix: %v", ours)
	d.until("the header without the foreign lock", func(m *Model) bool { return !strings.Contains(d.lines()[1], "foreign") })
	f.put(b, ours, lock("UNIQ#EMAIL#carol@x.io", "ACCT#x9"))
	d.until("the foreign lock again in the header", func(m *Model) bool { return strings.Contains(d.lines()[1], "foreign 1") })
}

// TestARenameByOthersEndsTheDuplicateOnEveryRow (found by
// TestTheScreenAgreesWithTheTable at full scale): two accounts held a
// value, the lock naming the one no page had listed yet; someone else
// renamed that one off it. The report said foreign_lock, but the other
// holder's row, not read again, still said duplicate. The holders of the
// values an account written held or holds are read again.
func TestARenameByOthersEndsTheDuplicateOnEveryRow(t *testing.T) {
	t.Parallel()
	b, f := fakeMany(300), make(feed, 4)
	b.Put(tablePlaceholder, acct("ACCT#zzzz", "user0@x.io", "zed"), lock("UNIQ#EMAIL#user0@x.io", "ACCT#zzzz"), lock("UNIQ#HANDLE#zed", "ACCT#zzzz"))
	d := liveDriver(t, b, f, clock.Clock{})
	lockRow := func() string {
		for i, l := range d.lines() {
			if strings.HasPrefix(strings.TrimLeft(l, "▸• "), "ACCT#0000 ") {
				return fields(d.lines()[i+1])
			}
		}
		return ""
	}
	if !strings.HasSuffix(lockRow(), "duplicate") {
		t.Fatalf("ACCT#0000's email lock says %q; want duplicate:\n%s", lockRow(), d.screen())
	}
	f.put(b, acct("ACCT#zzzz", "user0@x.io", "zed"), acct("ACCT#zzzz", "zed@x.io", "zed"))
	d.until("the report to say foreign", func(m *Model) bool { return strings.Contains(d.lines()[1], "foreign") })
	d.settle()
	if row := lockRow(); !strings.HasSuffix(row, "foreign") {
		t.Errorf("ACCT#0000's email lock, its owner gone off the value, says %q; want foreign:\n%s", row, d.screen())
	}
}

// TestAProblemsDetailsFollowTheStream (found by
// TestTheScreenAgreesWithTheTable's TTL run: an expired lock put again as
// a reservation stayed expired_lock on screen): someone else hands an
// orphan lock to another owner who holds nothing either; the problem is
// the same, and the problems view shows its new owner.
func TestAProblemsDetailsFollowTheStream(t *testing.T) {
	t.Parallel()
	b, f := fakePlanted(), make(feed, 4)
	d := liveDriver(t, b, f, clock.Clock{})
	d.press("3")
	waitScreen(d, "the orphan", "UNIQ#EMAIL#old@x.io")
	f.put(b, lock("UNIQ#EMAIL#old@x.io", "ACCT#a1"), lock("UNIQ#EMAIL#old@x.io", "ACCT#zz"))
	d.until("the new owner on the problem's row", func(m *Model) bool {
		for _, l := range d.lines() {
			if strings.Contains(l, "UNIQ#EMAIL#old@x.io") && strings.Contains(l, "owner ACCT#zz") {
				return true
			}
		}
		return false
	})
}

// TestWhatLapsedDuringTheCheckLapsesAtItsEnd: a check judges TTLs at the
// time it began; what lapsed by the time it ends lapses when its report
// comes, not at a later tick (the clock's ticks skip a running check).
func TestWhatLapsedDuringTheCheckLapsesAtItsEnd(t *testing.T) {
	t.Parallel()
	manual := clocktest.NewManual(ttlNow.Add(2 * time.Hour)) // the UI's now: bob's reservation (1 h from ttlNow) is past
	b := fakeTTL()                                           // the check judges at ttlNow: bob's lock expiring
	d := newDriver(t, Options{Roles: roles(b), Clock: manual.Clock()}, 120, 40)
	d.ready()
	d.until("bob's lock expired as the report comes", func(m *Model) bool { return reports(m, model.ExpiredLock, "bob@x") })
}

// TestADuplicateBehindAnOwnerlessLockShows (found by the proof at full
// scale, seed 5927782383951870173): A holds a value whose lock names no
// owner; someone else renames B onto it. The stream's judge reads the
// lock, its owner (none) and B, so it cannot see A: the duplicate stayed
// off the screen until the next check. The UI holds A's row: it reads
// the suspected duplicate's keys (check.Model.Suspect) and shows it.
func TestADuplicateBehindAnOwnerlessLockShows(t *testing.T) {
	t.Parallel()
	b, f := fakePlanted(), make(feed, 4)
	b.Put(tablePlaceholder, acct("ACCT#k1", "kim@x.io", "kim"), lock("UNIQ#EMAIL#kim@x.io", ""), lock("UNIQ#HANDLE#kim", "ACCT#k1"))
	d := liveDriver(t, b, f, clock.Clock{})
	if reports(&d.m, model.DuplicateValue, "kim@x.io") {
		t.Fatal("a duplicate before the rename")
	}
	f.put(b, acct("ACCT#a1", "ada@x.io", "ada"), acct("ACCT#a1", "kim@x.io", "ada"))
	d.until("the duplicate reported", func(m *Model) bool { return reports(m, model.DuplicateValue, "kim@x.io") })
}

// TestALockHandedOverBehindItsHolderIsForeign (found by the proof at full
// scale, seed 11920691617415641789, op 703): A holds a value whose lock
// names no owner; someone else hands the lock to an account that does
// not hold the value. The stream's judge reads the lock and that owner,
// not A, and said orphan; the UI holds A's row, reads the value's keys
// with it (check.Model.Suspect), and says foreign.
func TestALockHandedOverBehindItsHolderIsForeign(t *testing.T) {
	t.Parallel()
	b, f := fakePlanted(), make(feed, 4)
	b.Put(tablePlaceholder, acct("ACCT#k1", "kim@x.io", "kim"), lock("UNIQ#EMAIL#kim@x.io", ""), lock("UNIQ#HANDLE#kim", "ACCT#k1"))
	d := liveDriver(t, b, f, clock.Clock{})
	f.put(b, lock("UNIQ#EMAIL#kim@x.io", ""), lock("UNIQ#EMAIL#kim@x.io", "ACCT#zz"))
	d.until("the foreign lock reported, not an orphan", func(m *Model) bool {
		return reports(m, model.ForeignLock, "kim@x.io") && !reports(m, model.OrphanLock, "kim@x.io")
	})
}
