package ui

// tabs is how many list views the header and tab cycle through: the
// items view (neither accounts nor locks) is one once the check has
// counted such items, or while it is shown.
func (m Model) tabs() int {
	if m.view == viewItems || m.check.Bar().Others > 0 {
		return len(viewTitles)
	}
	return len(viewTitles) - 1
}
