package rows

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestCellWidth: the quick count agrees with ansi on what it counts, and
// hands the rest to ansi.
func TestCellWidth(t *testing.T) {
	for _, s := range []string{"", "ACCT#a1", "  └ UNIQ#EMAIL#ada@x.io", "▸ ACCT#a1 …", "Ådå", "日本語", "e\u0301", "👩‍💻", "\\x1b[31m"} {
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Errorf("cellWidth(%q) = %d, want %d", s, got, want)
		}
	}
}
