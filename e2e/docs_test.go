package e2e

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The README is the front door: what locktable is, the two commands,
// install, a tour, and links into the manual in docs/. Issue 39.
const readmeMaxLines = 250

// docFiles are the README and every page of the manual, by their paths
// in the module.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md")
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rel)
	}
	return out
}

// readDoc reads the file at path in the module.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestREADMEIsShort: the README is read in five minutes; the rest is
// the manual's.
func TestREADMEIsShort(t *testing.T) {
	readme := readDoc(t, "README.md")
	if n := strings.Count(readme, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail into docs/", n, readmeMaxLines)
	}
	first := regexp.MustCompile("(?s)^# locktable\n\n(?:<!--[^\n]*-->\n)?```sh\n(.*?)```").FindStringSubmatch(readme)
	if first == nil {
		t.Fatal("README.md does not open with its title and a shell block")
	}
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(first[1]), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if want := []string{"go run . --demo", "make test"}; !slices.Equal(cmds, want) {
		t.Errorf("the README's first commands are %q, want %q", cmds, want)
	}
}

// TestDocsLabelsOnce: the README had two "Requirements:" paragraphs,
// the older one short of what make test needs. A paragraph opened by a
// label says all there is under it, once, on each page.
func TestDocsLabelsOnce(t *testing.T) {
	for _, path := range docFiles(t) {
		seen := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^([A-Z][A-Za-z ]{2,20}): `).FindAllStringSubmatch(readDoc(t, path), -1) {
			if label := m[1]; seen[label] {
				t.Errorf("%s opens two paragraphs with %q", path, label+":")
			} else {
				seen[label] = true
			}
		}
	}
}

// mdLine is a line of a Markdown file outside or inside a fenced block.
type mdLine struct {
	n     int    // 1-based
	text  string // as written
	fence string // the info string of the block it is in ("" outside one)
	open  bool   // the line opens a fenced block
}

// mdLines splits a Markdown file, telling fenced blocks (``` at any
// indentation, as in a list item) from prose.
func mdLines(text string) []mdLine {
	var out []mdLine
	in, info := false, ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		trimmed := strings.TrimSpace(l)
		switch {
		case !in && strings.HasPrefix(trimmed, "```"):
			in, info = true, strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			if info == "" {
				info = "text"
			}
			out = append(out, mdLine{n: n, text: l, fence: info, open: true})
		case in && trimmed == "```":
			out = append(out, mdLine{n: n, text: l, fence: info})
			in, info = false, ""
		default:
			out = append(out, mdLine{n: n, text: l, fence: info})
		}
	}
	return out
}

// slug is the anchor GitHub gives a heading: lower case, everything but
// letters, digits, spaces, hyphens and underscores dropped, spaces as
// hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors are the anchors of a Markdown file's headings, a repeated one
// numbered as GitHub numbers it (-1, -2 ...).
func anchors(text string) map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
	for _, l := range mdLines(text) {
		if l.fence != "" {
			continue
		}
		m := regexp.MustCompile(`^#{1,6} (.+?)#*$`).FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if k := seen[s]; k > 0 {
			out[s+"-"+strconv.Itoa(k)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

var (
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeRE = regexp.MustCompile("`[^`]*`")
)

// TestDocsLinksResolve: every relative link of the README and the manual
// names a file that exists, and its #anchor a heading of that file.
func TestDocsLinksResolve(t *testing.T) {
	checked := 0
	for _, path := range docFiles(t) {
		for _, l := range mdLines(readDoc(t, path)) {
			if l.fence != "" {
				continue
			}
			for _, m := range linkRE.FindAllStringSubmatch(codeRE.ReplaceAllString(l.text, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				resolved := path
				if file != "" {
					resolved = filepath.Join(filepath.Dir(path), file)
				}
				if _, err := os.Stat(filepath.Join(root, resolved)); err != nil {
					t.Errorf("%s:%d: link %q: no %s", path, l.n, target, resolved)
					continue
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(resolved, ".md") {
					t.Errorf("%s:%d: link %q: an anchor into a file that is not Markdown", path, l.n, target)
					continue
				}
				if !anchors(readDoc(t, resolved))[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", path, l.n, target, resolved, anchor)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the test reads nothing")
	}
}

// shellFences are the info strings of the blocks a reader would paste
// into a shell.
var shellFences = []string{"sh", "bash", "console", "shell"}

// shellBlock is a fenced shell block with the marker line before it.
type shellBlock struct {
	file   string
	line   int
	marker string // the line before the fence, trimmed
	body   []string
	fence  string
}

var (
	notRunRE = regexp.MustCompile(`^<!-- not run: (\S.*\S) -->$`)
	runRE    = regexp.MustCompile(`^<!-- run: (Test\w+) -->$`)
)

// shellBlocks lists every shell block of the README and the manual.
func shellBlocks(t *testing.T) []shellBlock {
	t.Helper()
	var out []shellBlock
	for _, path := range docFiles(t) {
		lines := mdLines(readDoc(t, path))
		for i := 0; i < len(lines); i++ {
			if !lines[i].open || !slices.Contains(shellFences, lines[i].fence) {
				continue
			}
			b := shellBlock{file: path, line: lines[i].n, fence: lines[i].fence}
			for j := i - 1; j >= 0; j-- {
				if s := strings.TrimSpace(lines[j].text); s != "" {
					b.marker = s
					break
				}
			}
			for i++; i < len(lines) && strings.TrimSpace(lines[i].text) != "```"; i++ {
				b.body = append(b.body, lines[i].text)
			}
			out = append(out, b)
		}
	}
	return out
}

// commands are the command lines of a shell block: a console block's
// lines after its "$ " prompts (the rest is output), continuation lines
// joined, comments and blank lines left out.
func (b shellBlock) commands() []string {
	var out []string
	cur := ""
	for _, l := range b.body {
		l = strings.TrimSpace(l)
		if b.fence == "console" && cur == "" {
			var ok bool
			if l, ok = strings.CutPrefix(l, "$ "); !ok {
				continue
			}
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		if i := strings.Index(l, " # "); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if more, ok := strings.CutSuffix(l, `\`); ok {
			cur += strings.TrimSpace(more) + " "
			continue
		}
		if l = strings.TrimSpace(cur + l); l != "" {
			out = append(out, l)
		}
		cur = ""
	}
	return out
}

// testFuncs maps the name of every Test function of the module to its
// source text.
func testFuncs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				out[fn.Name.Name] = string(src[fset.Position(fn.Pos()).Offset:fset.Position(fn.End()).Offset])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDocsShellBlocksRunOrSayWhyNot: every shell block of the README and
// the manual is run by a test, named on the line before it
// (<!-- run: TestName -->, a test whose code holds every word of the
// block's commands), or marked as not runnable here, with the reason
// (<!-- not run: REASON -->). A block added without either fails.
func TestDocsShellBlocksRunOrSayWhyNot(t *testing.T) {
	funcs := testFuncs(t)
	blocks := shellBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("no shell block found: the test reads nothing")
	}
	for _, b := range blocks {
		if notRunRE.MatchString(b.marker) {
			continue
		}
		m := runRE.FindStringSubmatch(b.marker)
		if m == nil {
			t.Errorf("%s:%d: a shell block neither run by a test (<!-- run: TestName -->) nor marked <!-- not run: REASON --> on the line before it", b.file, b.line)
			continue
		}
		src, ok := funcs[m[1]]
		if !ok {
			t.Errorf("%s:%d: run by %s, which is no test of the module", b.file, b.line, m[1])
			continue
		}
		for _, cmd := range b.commands() {
			args := strings.TrimPrefix(strings.TrimPrefix(cmd, "go run . "), "locktable ")
			for _, word := range strings.Fields(args) {
				if w := strings.Trim(word, `'"`); !strings.Contains(src, w) {
					t.Errorf("%s:%d: %s does not run %q (no %q in its code)", b.file, b.line, m[1], cmd, w)
				}
			}
		}
	}
}

// TestDocsDemoCommands runs the shell blocks that need nothing but the
// embedded demo (the README's tour among them), as written, and holds
// the blocks marked for it to the list below: a block added, changed or
// dropped fails until the list says the same.
func TestDocsDemoCommands(t *testing.T) {
	t.Parallel()
	// Each command, as the docs give it, and its exit status.
	want := map[string]int{
		"go run . check --demo":                                                           1,
		"go run . race --demo --set email=race@x.io":                                      0,
		"go run . demo break rename-leak --demo":                                          0,
		"go run . --demo --preset electrodb:agent --unique email --unique codename check": 1,
	}
	var got []string
	for _, b := range shellBlocks(t) {
		if b.marker == "<!-- run: TestDocsDemoCommands -->" {
			got = append(got, b.commands()...)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(maps.Keys(want))) {
		t.Fatalf("the docs' blocks marked for TestDocsDemoCommands run %q, the test knows %q", got, slices.Sorted(maps.Keys(want)))
	}
	for _, cmd := range got {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			args, ok := strings.CutPrefix(cmd, "go run . ")
			if !ok {
				args, ok = strings.CutPrefix(cmd, "locktable ")
			}
			if !ok || strings.ContainsAny(args, `'"$|<>;&`) {
				t.Fatalf("%q: not a plain locktable command line", cmd)
			}
			r := locktable(t, nil, strings.Fields(args)...)
			if r.code != want[cmd] {
				t.Fatalf("%s: exit %d, want %d\nstdout: %.2000s\nstderr: %.2000s", cmd, r.code, want[cmd], r.stdout, r.stderr)
			}
			if r.stdout == "" {
				t.Errorf("%s printed nothing", cmd)
			}
		})
	}
}
