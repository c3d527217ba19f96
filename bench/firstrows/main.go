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
// Beside locktable, in the same rounds and in turn (the order rotates
// each round), it can time the harness's floor (-floor: tmux showing what
// echo prints, an account row, the same way) and a peer (-peer: another
// browser's command line, e.g. dynamo-browse, whose rows -peer-row
// matches). It then prints each one's time net of the floor, and
// locktable's net over the peer's against -target.
//
// With -trace, locktable is started with LOCKTABLE_TRACE_STARTUP naming a
// file, where it records when it passed each phase of its start
// (internal/startuptrace), and each round prints them, from the start.
//
// Usage: firstrows [-rounds N] [-screen FILE] [-floor] [-trace]
// [-peer 'CMD ARGS' [-peer-row RE] [-peer-screen FILE]] -- locktable ARGS...
// It prints "round R NAME: T ms" a round and subject, then the summary.
package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/startuptrace"
)

// row is an account row on locktable's screen: "  ACCT#..." or "▸ ACCT#...".
var row = regexp.MustCompile(`(?m)^[ ▸] +ACCT#`)

// peerRow is an account row on dynamo-browse's screen: "⋅ ACCT#...".
const peerRow = `(?m)^[ ⋅▸] *ACCT#\S+ +PROFILE`

// subject is one program timed.
type subject struct {
	name    string
	shell   string // what the window's shell runs after taking the time
	row     *regexp.Regexp
	screen  string // where to write the first round's screen ("": nowhere)
	trace   bool   // LOCKTABLE_TRACE_STARTUP is set for it
	times   []float64
	failed  int                  // rounds left out
	phases  map[string][]float64 // ms from the start, per round
	ordered []string             // the phases in the order first seen
}

func main() {
	rounds := flag.Int("rounds", 9, "rounds, 3 s apart")
	screenFile := flag.String("screen", "", "where to write locktable's first screen")
	floor := flag.Bool("floor", false, "time tmux showing what echo prints too (the harness's floor)")
	trace := flag.Bool("trace", false, "print locktable's phases (LOCKTABLE_TRACE_STARTUP) each round")
	peer := flag.String("peer", "", "a peer's command line, timed in turn with locktable (words split on spaces)")
	peerRowRE := flag.String("peer-row", peerRow, "a regexp that matches an account row on the peer's screen")
	peerScreen := flag.String("peer-screen", "", "where to write the peer's first screen")
	target := flag.Float64("target", 0.5, "the most locktable's net time may be of the peer's")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: firstrows [-rounds N] [-screen FILE] [-floor] [-trace] [-peer 'CMD ARGS'] -- locktable ARGS...")
		os.Exit(2)
	}
	subjects, err := plan(flag.Args(), *screenFile, *trace, *floor, *peer, *peerRowRE, *peerScreen)
	if err == nil {
		err = run(*rounds, subjects)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "firstrows:", err)
		os.Exit(1)
	}
	if !summary(os.Stdout, subjects, *target, *peer != "") {
		os.Exit(3)
	}
}

// plan lists the subjects: locktable, then the floor and the peer when
// asked for.
func plan(command []string, screen string, trace, floor bool, peer, peerRowRE, peerScreen string) ([]*subject, error) {
	lt, err := commandLine(command)
	if err != nil {
		return nil, err
	}
	subjects := []*subject{{name: "locktable", shell: lt, row: row, screen: screen, trace: trace}}
	if floor {
		// A program that prints an account row and stays (a pane whose
		// program ends at once may be gone before tmux shows its output).
		subjects = append(subjects, &subject{name: "floor", shell: `exec /bin/sh -c "echo ACCT#00000000; exec sleep 100"`, row: regexp.MustCompile(`(?m)^ACCT#`)})
	}
	if peer != "" {
		re, err := regexp.Compile(peerRowRE)
		if err != nil {
			return nil, fmt.Errorf("-peer-row: %w", err)
		}
		pc, err := commandLine(strings.Fields(peer))
		if err != nil {
			return nil, err
		}
		subjects = append(subjects, &subject{name: "peer", shell: pc, row: re, screen: peerScreen})
	}
	return subjects, nil
}

// commandLine is the shell's exec of command, whose words need no quoting.
func commandLine(command []string) (string, error) {
	for _, a := range command {
		if !plain.MatchString(a) {
			return "", fmt.Errorf("argument %q: only letters, digits and _./:=@,+- are passed through tmux's and the shell's quoting", a)
		}
	}
	return "exec " + strings.Join(command, " "), nil
}

func run(rounds int, subjects []*subject) error {
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
	for _, o := range [][]string{{"default-shell", "/bin/bash"}, {"default-size", "80x24"}} {
		if err := tmux("set", "-g", o[0], o[1]); err != nil {
			return err
		}
	}
	cc, err := attach(sock)
	if err != nil {
		return err
	}
	defer cc.close()

	for r := 1; r <= rounds; r++ {
		// In turn, each first in one round of every len(subjects).
		for i := range subjects {
			s := subjects[(i+r-1)%len(subjects)]
			switch err := cc.round(dir, r, s); {
			case err == nil:
			case s.name == "peer":
				// dynamo-browse now and then shows "0 items returned"
				// for a table it showed a moment before: the round is
				// said, and left out.
				fmt.Printf("round %d peer: failed, left out: %s\n", r, strings.SplitN(err.Error(), "\n", 2)[0])
				s.failed++
			default:
				return err
			}
			time.Sleep(3 * time.Second) // the emulator ends what the quitting UI had asked
		}
	}
	return nil
}

// round times s once.
func (c *control) round(dir string, r int, s *subject) error {
	started := filepath.Join(dir, fmt.Sprintf("started-%s-%d", s.name, r))
	traced := filepath.Join(dir, fmt.Sprintf("trace-%s-%d", s.name, r))
	shell := fmt.Sprintf(`printf %%s "$EPOCHREALTIME" >%s; %s`, started, s.shell)
	if s.trace {
		shell = fmt.Sprintf("export %s=%s; %s", startuptrace.Env, traced, shell)
	}
	// The window is made in the session the client is attached to, so
	// that the client is told of its output from its first byte.
	pane, err := c.command(fmt.Sprintf("new-window -d -P -F '#{pane_id}' -t idle: %s", tmuxQuote(shell)))
	if err != nil {
		return err
	}
	pane = strings.TrimSpace(pane)
	defer func() { _, _ = c.command("kill-window -t " + pane) }()
	seen, screen, err := c.firstRow(pane, s.row, 10*time.Second)
	if s.trace && err == nil {
		// The probe is asked once the first rows are on screen: it is
		// given the time to answer, to be in the phases.
		time.Sleep(probeWait)
	}
	_, _ = c.command("send-keys -t " + pane + " q")
	if err != nil {
		return fmt.Errorf("round %d, %s: %w; the screen:\n%s", r, s.name, err, screen)
	}
	raw, err := os.ReadFile(started)
	if err != nil {
		return fmt.Errorf("round %d, %s: the start time: %w", r, s.name, err)
	}
	start, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
	if err != nil {
		return fmt.Errorf("round %d, %s: the start time %q: %w", r, s.name, raw, err)
	}
	at := float64(seen.UnixNano()) / 1e9
	ms := (at - start) * 1000
	s.times = append(s.times, ms)
	line := fmt.Sprintf("round %d %s: %.1f ms", r, s.name, ms)
	if s.trace {
		line += " (" + s.takePhases(traced, start, ms) + ")"
	}
	fmt.Println(line)
	if s.screen != "" && len(s.times) == 1 {
		return os.WriteFile(s.screen, []byte(screen), 0o644)
	}
	return nil
}

// takePhases reads a round's trace, keeps each phase's time from start,
// and says them in the order passed.
func (s *subject) takePhases(file string, start, seen float64) string {
	raw, err := os.ReadFile(file)
	if err != nil {
		return "no trace: " + err.Error()
	}
	if s.phases == nil {
		s.phases = map[string][]float64{}
	}
	var said []string
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	// Where tmux showed the first row, among the phases the binary marked.
	lines = append(lines, fmt.Sprintf("on screen %d", int64((start+seen/1000)*1e9)))
	slices.SortStableFunc(lines, func(a, b string) int {
		return strings.Compare(fmt.Sprintf("%020s", a[strings.LastIndexByte(a, ' ')+1:]), fmt.Sprintf("%020s", b[strings.LastIndexByte(b, ' ')+1:]))
	})
	for _, l := range lines {
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			continue
		}
		ns, err := strconv.ParseInt(l[i+1:], 10, 64)
		if err != nil {
			continue
		}
		name, ms := l[:i], (float64(ns)/1e9-start)*1000
		if _, ok := s.phases[name]; !ok {
			s.ordered = append(s.ordered, name)
		}
		s.phases[name] = append(s.phases[name], ms)
		said = append(said, fmt.Sprintf("%s %.1f", name, ms))
	}
	return strings.Join(said, ", ")
}

// probeWait is how long a traced locktable runs after its first rows,
// for its probe (asked after them) to answer.
const probeWait = 500 * time.Millisecond

// median of ms, which it sorts.
func median(ms []float64) float64 {
	slices.Sort(ms)
	n := len(ms)
	if n%2 == 1 {
		return ms[n/2]
	}
	return (ms[n/2-1] + ms[n/2]) / 2
}

// summary prints each subject's median, locktable's phases, and, with
// the floor and a peer, the net ratio against target; false when the
// ratio misses it.
func summary(w io.Writer, subjects []*subject, target float64, peerAsked bool) bool {
	med := map[string]float64{}
	for _, s := range subjects {
		if len(s.times) == 0 {
			fmt.Fprintf(w, "%s: no round succeeded\n", s.name)
			return false
		}
		m := median(slices.Clone(s.times))
		med[s.name] = m
		left := ""
		if s.failed > 0 {
			left = fmt.Sprintf(", %d left out", s.failed)
		}
		fmt.Fprintf(w, "%s: median %.1f ms (min %.1f, max %.1f; %d rounds%s)\n", s.name, m, slices.Min(s.times), slices.Max(s.times), len(s.times), left)
		if len(s.phases) > 0 {
			meds := map[string]float64{}
			for _, name := range s.ordered {
				meds[name] = median(slices.Clone(s.phases[name]))
			}
			slices.SortStableFunc(s.ordered, func(a, b string) int { return cmp.Compare(meds[a], meds[b]) })
			var said []string
			for _, name := range s.ordered {
				said = append(said, fmt.Sprintf("%s %.1f", name, meds[name]))
			}
			fmt.Fprintf(w, "%s phases, ms from the process's start (medians): %s\n", s.name, strings.Join(said, ", "))
		}
	}
	floor, floored := med["floor"]
	if !peerAsked {
		fmt.Fprintln(w, "peer not measured: set BENCH_PEER to a dynamo-browse binary (go build -o /some/dir/dynamo-browse ./cmd/dynamo-browse in a clone of github.com/lmika/dynamo-browse, kept outside this repository) to time it in the same rounds")
		return true
	}
	if !floored {
		fmt.Fprintln(w, "no floor measured (-floor): the ratio is of the raw times")
	}
	lt, peer := med["locktable"]-floor, med["peer"]-floor
	ratio := lt / peer
	verdict := "PASS"
	if ratio > target {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "net of the floor (%.1f ms): locktable %.1f ms, peer %.1f ms: locktable/peer %.2f (target <= %.2g: %s)\n", floor, lt, peer, ratio, target, verdict)
	return ratio <= target
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
func (c *control) firstRow(pane string, row *regexp.Regexp, wait time.Duration) (time.Time, string, error) {
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
