// Command firstrows times the terminal UI's first rows as a user sees
// them, for bench/tui: the binary is started in a tmux window of 80x24,
// and the time runs from the process's start (the shell's $EPOCHREALTIME
// just before it execs the binary) to the moment tmux takes the first
// account row onto the window's screen.
//
// Nothing is polled. A tmux control-mode client attached to the session
// is told of every write the binary makes as tmux reads it (%output), and
// capture-pane then confirms that the screen shows an account row. The
// control client's lines are read here, through a buffer: a shell's read
// takes a pipe a byte at a time, tens of milliseconds for a screen's
// worth of output, which would be counted as the UI's.
//
// Usage: firstrows -rounds N -screen FILE -- locktable ARGS...
// It prints "round R: T ms" a round, and writes the first round's screen
// to FILE.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/locktable/locktable/internal/clock"
)

// row is an account row on the screen: "  ACCT#..." or "▸ ACCT#...".
var row = regexp.MustCompile(`(?m)^[ ▸] +ACCT#`)

func main() {
	rounds := flag.Int("rounds", 9, "rounds, 3 s apart")
	screenFile := flag.String("screen", "", "where to write the first round's screen")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: firstrows -rounds N -screen FILE -- locktable ARGS...")
		os.Exit(2)
	}
	if err := run(*rounds, *screenFile, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "firstrows:", err)
		os.Exit(1)
	}
}

func run(rounds int, screenFile string, command []string) error {
	dir, err := os.MkdirTemp("", "firstrows")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "tmux")
	tmux := func(args ...string) error {
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
		}
		return nil
	}
	if err := tmux("new-session", "-d", "-s", "idle", "-x", "80", "-y", "24", "sleep 100000"); err != nil {
		return err
	}
	defer tmux("kill-server")
	// bash in the window, for $EPOCHREALTIME; new windows are 80x24.
	if err := tmux("set", "-g", "default-shell", "/bin/bash"); err != nil {
		return err
	}
	if err := tmux("set", "-g", "default-size", "80x24"); err != nil {
		return err
	}
	cc, err := attach(sock)
	if err != nil {
		return err
	}
	defer cc.close()

	for _, a := range command {
		if !plain.MatchString(a) {
			return fmt.Errorf("argument %q: only letters, digits and _./:=@,+- are passed through tmux's and the shell's quoting", a)
		}
	}
	for r := 1; r <= rounds; r++ {
		started := filepath.Join(dir, fmt.Sprintf("started-%d", r))
		shell := fmt.Sprintf(`printf %%s "$EPOCHREALTIME" >%s; exec %s`, started, strings.Join(command, " "))
		// The window is made in the session the client is attached to,
		// so that the client is told of its output from its first byte.
		pane, err := cc.command(fmt.Sprintf("new-window -d -P -F '#{pane_id}' -t idle: %s", tmuxQuote(shell)))
		if err != nil {
			return err
		}
		pane = strings.TrimSpace(pane)
		seen, screen, err := cc.firstRow(pane, 10*time.Second)
		_, _ = cc.command("send-keys -t " + pane + " q")
		if err != nil {
			return fmt.Errorf("round %d: %w; the screen:\n%s", r, err, screen)
		}
		raw, err := os.ReadFile(started)
		if err != nil {
			return fmt.Errorf("round %d: the start time: %w", r, err)
		}
		start, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
		if err != nil {
			return fmt.Errorf("round %d: the start time %q: %w", r, raw, err)
		}
		at := float64(seen.UnixNano()) / 1e9
		fmt.Printf("round %d: %.1f ms\n", r, (at-start)*1000)
		if os.Getenv("FIRSTROWS_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "%.6f start\n%.6f seen\n", start, at)
		}
		if r == 1 && screenFile != "" {
			if err := os.WriteFile(screenFile, []byte(screen), 0o644); err != nil {
				return err
			}
		}
		time.Sleep(3 * time.Second) // the emulator ends what the quitting UI had asked
		_, _ = cc.command("kill-window -t " + pane)
	}
	return nil
}

// control is a tmux control-mode client.
type control struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines <-chan string // closed when the client has gone
	clk   clock.Clock
	n     int
}

func attach(sock string) (*control, error) {
	cmd := exec.Command("tmux", "-S", sock, "-C", "attach", "-t", "idle", "-f", "ignore-size")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		r := bufio.NewScanner(out)
		r.Buffer(nil, 1<<20) // a %output line can hold a whole screen
		for r.Scan() {
			lines <- r.Text()
		}
	}()
	c := &control{cmd: cmd, in: in, lines: lines, clk: clock.System()}
	_, err = c.command("display-message -p ready")
	return c, err
}

func (c *control) close() {
	c.in.Close()
	_ = c.cmd.Wait()
}

// lineWait bounds the wait for any one line of the client.
const lineWait = 10 * time.Second

// line is the client's next line, waiting at most wait.
func (c *control) line(wait time.Duration) (string, error) {
	select {
	case l, ok := <-c.lines:
		if !ok {
			return "", io.EOF
		}
		return l, nil
	case <-time.After(wait):
		return "", fmt.Errorf("tmux said nothing for %v", wait)
	}
}

// command runs a tmux command through the client and returns its output.
// Notifications read meanwhile (the output of panes) are dropped.
func (c *control) command(cmd string) (string, error) {
	c.n++
	mark := fmt.Sprintf("mark:%d", c.n)
	// The mark on a line of its own: after a command that fails, tmux
	// runs no more of its line.
	if _, err := fmt.Fprintf(c.in, "%s\ndisplay-message -p %s\n", cmd, mark); err != nil {
		return "", err
	}
	// A block (%begin to %end or %error) holds a command's output,
	// whatever its lines start with; outside one, lines are
	// notifications. The command's block comes before the mark's.
	var block strings.Builder
	in, reply, failed := false, "", false
	for {
		l, err := c.line(lineWait)
		if err != nil {
			return "", fmt.Errorf("tmux %q: %w", cmd, err)
		}
		switch {
		case in && l == mark:
			if failed {
				return "", fmt.Errorf("tmux %q: %s", cmd, reply)
			}
			return reply, nil
		case in && (strings.HasPrefix(l, "%end ") || strings.HasPrefix(l, "%error ")):
			in, reply = false, block.String()
			failed = failed || strings.HasPrefix(l, "%error ")
		case in:
			block.WriteString(l + "\n")
		case strings.HasPrefix(l, "%begin "):
			in = true
			block.Reset()
		}
	}
}

// firstRow waits for the pane's first account row on screen: the time
// tmux told of the write that drew it, and the screen then.
func (c *control) firstRow(pane string, wait time.Duration) (time.Time, string, error) {
	prefix := "%output " + pane + " "
	tail := "" // the end of the last write: ACCT# may span two
	for sw := clock.Start(); sw.Elapsed() < wait; {
		l, err := c.line(wait - sw.Elapsed())
		if err != nil {
			break
		}
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		at := c.clk.Now()
		written := tail + l[len(prefix):]
		tail = written[max(len(written)-4, 0):]
		if !strings.Contains(written, "ACCT#") {
			continue
		}
		screen, err := c.command("capture-pane -p -t " + pane)
		if err != nil {
			return time.Time{}, "", err
		}
		if row.MatchString(screen) {
			return at, screen, nil
		}
		// ACCT# written, but not yet as a row: wait for more.
	}
	screen, _ := c.command("capture-pane -p -t " + pane)
	return time.Time{}, screen, fmt.Errorf("no account row on screen after %v", wait)
}

// plain is an argument that needs no quoting, in tmux or in the shell.
var plain = regexp.MustCompile(`^[A-Za-z0-9_./:=@,+-]+$`)

// tmuxQuote quotes s, which holds no single quote, as one argument of a
// tmux command.
func tmuxQuote(s string) string { return "'" + s + "'" }
