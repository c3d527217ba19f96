package ui

// tabs is how many list views the header and tab cycle through: the
// items view (neither accounts nor locks) is one once the check has
// counted such items; the tabs reach the view shown, whatever it is.
func (m Model) tabs() int {
	n := len(viewTitles) - 1
	if m.check.Bar().Others > 0 {
		n = len(viewTitles)
	}
	return max(n, int(m.views.shown)+1)
}
