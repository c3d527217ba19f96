package problems

import "github.com/locktable/locktable/ui/browser"

// Match reports whether line i's problem shows q (browser.Matcher): its
// kind, attribute, value or its lock's key as the row shows it
// (rows.ProblemCells), owner or the accounts that hold the value.
func (d *source) Match(i int, q string) bool {
	p, ok := d.at(i)
	if !ok {
		return false
	}
	if browser.Contains(string(p.Kind), q) || browser.Contains(p.Constraint, q) || browser.Contains(p.Value, q) || browser.Contains(p.Owner, q) {
		return true
	}
	if p.Lock != nil && d.r.ProblemLockShows(p, q) {
		return true
	}
	for _, id := range p.Accounts {
		if browser.Contains(id, q) {
			return true
		}
	}
	return false
}
