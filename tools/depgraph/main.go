// Command depgraph draws locktable's packages and their imports as a
// Mermaid flowchart (GitHub draws it in docs/development.md), top to bottom: an
// arrow from a package to one it imports always points down, and an
// arrow implied by two others (a imports b, b imports c: a to c) is
// left out, so that what is drawn is the layering.
//
//	go run ./tools/depgraph                              # prints the chart
//	go run ./tools/depgraph -file docs/development.md    # rewrites it in place (make deps)
//
// The chart sits between the lines Begin and End of that page;
// TestDocsChartIsCurrent fails when it is not what this prints.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// The lines the chart sits between in its page.
const (
	Begin = "<!-- packages: make deps draws this chart (tools/depgraph) -->"
	End   = "<!-- end of packages -->"
)

const module = "github.com/locktable/locktable"

func main() {
	file := flag.String("file", "", "rewrite the chart between its markers in this file, instead of printing it")
	flag.Parse()
	if err := run(*file, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "depgraph:", err)
		os.Exit(1)
	}
}

func run(file string, out io.Writer) error {
	g, err := load(".")
	if err != nil {
		return err
	}
	chart := g.chart()
	if file == "" {
		_, err = io.WriteString(out, chart)
		return err
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	next, err := Replace(string(text), chart)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return os.WriteFile(file, []byte(next), 0o644)
}

// graph maps each package drawn (its path in the module, "." for main)
// to those of the module it imports.
type graph map[string][]string

// load lists the packages under dir with go list.
func load(dir string) (graph, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("go list: %v: %s", err, exit.Stderr)
		}
		return nil, fmt.Errorf("go list: %w", err)
	}
	g := graph{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		name := short(p.ImportPath)
		if !drawn(name) {
			continue
		}
		g[name] = nil
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) && drawn(short(imp)) {
				g[name] = append(g[name], short(imp))
			}
		}
	}
	return g, nil
}

// short is a package's path in the module.
func short(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// drawn reports whether the chart shows package p: what ships, not the
// test helpers (…test), the end-to-end tests, the benchmarks, the
// reliability suite or the build tools (tools/).
func drawn(p string) bool {
	return !strings.HasSuffix(p, "test") && p != "e2e" && !strings.HasPrefix(p, "bench/") && p != "reliability" &&
		!strings.HasPrefix(p, "tools/")
}

// reaches reports whether from imports to through at least one other
// package.
func (g graph) reaches(from, to string) bool {
	seen := map[string]bool{}
	var walk func(p string, depth int) bool
	walk = func(p string, depth int) bool {
		if p == to {
			return depth > 1
		}
		if seen[p] {
			return false
		}
		seen[p] = true
		for _, q := range g[p] {
			if walk(q, depth+1) {
				return true
			}
		}
		return false
	}
	return walk(from, 0)
}

// chart is the Mermaid flowchart of g with its implied arrows left out,
// between the markers.
func (g graph) chart() string {
	names := make([]string, 0, len(g))
	for p := range g {
		names = append(names, p)
	}
	slices.Sort(names)
	id := func(p string) string {
		if p == "." {
			return "main"
		}
		return strings.NewReplacer("/", "_", ".", "_").Replace(p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n```mermaid\nflowchart TD\n", Begin)
	for _, p := range names {
		label := p
		if p == "." {
			label = "main"
		}
		fmt.Fprintf(&b, "  %s[%s]\n", id(p), label)
	}
	for _, p := range names {
		imps := slices.Clone(g[p])
		slices.Sort(imps)
		for _, q := range imps {
			if !g.reaches(p, q) {
				fmt.Fprintf(&b, "  %s --> %s\n", id(p), id(q))
			}
		}
	}
	fmt.Fprintf(&b, "```\n%s\n", End)
	return b.String()
}

// Replace puts chart in text in place of the lines from Begin to End.
func Replace(text, chart string) (string, error) {
	i := strings.Index(text, Begin)
	j := strings.Index(text, End)
	if i < 0 || j < i {
		return "", fmt.Errorf("no chart between %q and %q", Begin, End)
	}
	return text[:i] + strings.TrimSuffix(chart, "\n") + text[j+len(End):], nil
}
