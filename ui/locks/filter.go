package locks

import "github.com/locktable/locktable/ui/browser"

// Match reports whether the lock named shows q (pager.Look): its key, its
// owner, its attribute or its status.
func (l *look) Match(name, q string) bool {
	lock := l.items.Lock(name)
	c := l.r.Schema.Constraints[lock.Constraint]
	words, _ := l.items.LockStatus(&lock)
	return l.r.ListedLockKeyShows(&lock, q) || browser.Contains(lock.Owner, q) || browser.Contains(c.Attr, q) || browser.Contains(words, q)
}
