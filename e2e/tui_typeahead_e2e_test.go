package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// heldEndpoint is a proxy to the emulator at ep that holds every request
// until release is called; reached is closed at the first request, when
// locktable has started and waits on the table.
func heldEndpoint(t *testing.T, ep string) (url string, reached <-chan struct{}, release func()) {
	t.Helper()
	target, err := urlParse(ep)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	hold, first := make(chan struct{}), make(chan struct{})
	var once, freed sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(first) })
		<-hold
		proxy.ServeHTTP(w, r)
	}))
	release = func() { freed.Do(func() { close(hold) }) }
	t.Cleanup(func() { release(); srv.Close() })
	return srv.URL, first, release
}

func urlParse(s string) (*url.URL, error) { return url.Parse(s) }

// startShell runs locktable with args from bash in a fresh 80x24 tmux
// pane, a server of its own; after it exits the shell prints EXIT=status,
// then what it can read of what was left typed as LEFT=[...], and stays.
func startShell(t *testing.T, args ...string) *term {
	t.Helper()
	for _, tool := range []string{"tmux", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	tm := &term{t: t, socket: "locktable-e2e-" + hex.EncodeToString(b), session: "shell-" + hex.EncodeToString(b)}
	cmd := []string{shellQuote(binary)}
	for _, a := range args {
		cmd = append(cmd, shellQuote(a))
	}
	script := strings.Join(cmd, " ") + `; echo "EXIT=$?"; read -r -t 1 left; echo "LEFT=[$left]"; sleep 60`
	c := exec.Command("tmux", "-L", tm.socket, "new-session", "-d", "-s", tm.session, "-x", "80", "-y", "24", "bash", "--norc", "--noprofile", "-c", script)
	c.Env = environ(map[string]string{"XDG_STATE_HOME": t.TempDir(), "TMUX": "", "TERM": "xterm-256color"})
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

// TestTypedAheadStaysOffTheShell: keys typed while locktable started (here
// while its first requests wait) were echoed on the shell's screen and
// were there after it quit (xyzEXIT=0); when it failed to start they were
// the shell's next input. They are neither.
func TestTypedAheadStaysOffTheShell(t *testing.T) {
	ep, table := seededTable(t, "--accounts", "3")
	t.Run("quit", func(t *testing.T) {
		proxy, reached, release := heldEndpoint(t, ep)
		tm := startShell(t, "--endpoint-url", proxy, "--table", table)
		waitClosed(t, reached)
		tm.text("xyz")
		time.Sleep(300 * time.Millisecond) // the terminal has them
		if s := tm.capture(); strings.Contains(s, "xyz") {
			t.Errorf("the keys typed ahead are echoed while it starts:\n%s", s)
		}
		release()
		tm.waitText("the first account", "└ UNIQ#HANDLE#ada0")
		tm.keys("q")
		s := tm.waitText("the shell's next lines", "LEFT=[")
		if !strings.Contains(s, "\nEXIT=0\n") && !strings.HasPrefix(s, "EXIT=0\n") || strings.Contains(s, "xyz") {
			t.Errorf("after quitting, want EXIT=0 on a line of its own and no xyz:\n%s", s)
		}
	})
	t.Run("failed start", func(t *testing.T) {
		proxy, reached, release := heldEndpoint(t, ep)
		tm := startShell(t, "--endpoint-url", proxy, "--table", table+"-absent")
		waitClosed(t, reached)
		tm.text("xyz")
		time.Sleep(300 * time.Millisecond)
		release()
		s := tm.waitText("the shell's next lines", "LEFT=[")
		if !strings.Contains(s, "LEFT=[]") || strings.Contains(s, "xyz") {
			t.Errorf("the keys typed ahead are echoed or reach the shell:\n%s", s)
		}
	})
}

// TestTUIQuickEsc: esc esc 2 G sent at once (one read: the input reader
// took it as alt+2, G) in the rename preview did nothing; they close it,
// show the locks and select the last.
func TestTUIQuickEsc(t *testing.T) {
	ep, table := seededTable(t, "--accounts", "3")
	tm := startTUISized(t, 80, 24, "--endpoint-url", ep, "--table", table)
	tm.start()
	tm.waitText("the first account", "└ UNIQ#HANDLE#ada0")
	tm.keys("e")
	tm.waitText("the form", "rename ACCT#")
	tm.keys("C-u")
	tm.text("zed@example.org")
	tm.keys("Enter")
	tm.waitText("the preview", "put lock UNIQ#EMAIL#zed@example.org")
	tm.keys("Escape", "Escape", "2", "G")
	tm.waitFor("the locks, the last selected", func(s string) bool {
		return strings.Contains(s, "2 Locks") && strings.Contains(s, "▸ UNIQ#HANDLE#")
	})
	if got := tm.quit(); got != "EXIT=0" {
		t.Fatalf("quit: %s", got)
	}
}

// waitClosed waits for ch, failing after tmuxWait.
func waitClosed(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(tmuxWait):
		t.Fatal("locktable sent no request")
	}
}
