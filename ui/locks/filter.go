package locks

import "github.com/locktable/locktable/ui/browser"

// Match reports whether lock i shows q (browser.Matcher): its key, its
// owner, its attribute or its status.
func (d *source) Match(i int, q string) bool {
	lock := d.lock(i)
	l := &lock
	sc := d.r.Schema
	c := sc.Constraints[l.Constraint]
	words, _ := d.lockStatus(l)
	key := browser.Contains(l.Value, q)
	if c.InAccountTable() {
		key = browser.ContainsJoined(c.Prefix, l.Value, q)
	}
	return key || browser.Contains(l.Owner, q) || browser.Contains(c.Attr, q) || browser.Contains(words, q)
}
