package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestALayoutIsJudgedOnceDrawn replays what CI once captured in the middle
// of a frame (testdata/layout/half-drawn.txt: row 22 is half the new page
// and half the page before, so its status word stands two columns right):
// a capture caught being drawn is read again, and only a layout that
// stays wrong is reported.
func TestALayoutIsJudgedOnceDrawn(t *testing.T) {
	b, err := os.ReadFile("testdata/layout/half-drawn.txt")
	if err != nil {
		t.Fatal(err)
	}
	half := string(b)
	lines := strings.Split(strings.TrimSuffix(half, "\n"), "\n")
	lines[21] = `    …{"S…"]}  username  held by ACCT#x04-string-set` + strings.Repeat(" ", 20) + "invalid"
	whole := strings.Join(lines, "\n") + "\n"
	if wrong := layoutWrong(strings.TrimSuffix(half, "\n"), strings.TrimSuffix(half, "\n"), 80, 24); !strings.Contains(wrong, "a status word in column 73, another in 71") {
		t.Fatalf("the half-drawn frame: %q, want its misaligned row found", wrong)
	}
	if wrong := layoutWrong(strings.TrimSuffix(whole, "\n"), strings.TrimSuffix(whole, "\n"), 80, 24); wrong != "" {
		t.Fatalf("the whole frame: %q, want nothing wrong", wrong)
	}

	frames := []string{half, half, whole}
	read := func() (string, string) {
		f := frames[0]
		if len(frames) > 1 {
			frames = frames[1:]
		}
		return f, f
	}
	if screen, wrong := settledLayout(read, 80, 24, time.Minute); wrong != "" || screen != strings.TrimSuffix(whole, "\n") {
		t.Errorf("a frame caught being drawn, then drawn: %q on\n%s\nwant the whole frame, nothing wrong", wrong, screen)
	}

	stays := func() (string, string) { return half, half }
	if _, wrong := settledLayout(stays, 80, 24, 0); wrong == "" {
		t.Error("a layout that stays wrong was not reported")
	}
}
