package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra/doc"

	"github.com/locktable/locktable/cli"
)

func TestWriteDocs(t *testing.T) {
	root := cli.Command(cli.BuildInfo{Version: "1.2.3"})
	root.InitDefaultCompletionCmd()
	dir := t.TempDir()
	completions, manpages := filepath.Join(dir, "completions"), filepath.Join(dir, "manpages")
	if err := os.MkdirAll(manpages, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(manpages, "locktable-gone.1.gz")
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeCompletions(root, completions); err != nil {
		t.Fatal(err)
	}
	date := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	header := &doc.GenManHeader{Section: "1", Source: "locktable 1.2.3", Manual: "locktable manual", Date: &date}
	if err := writeManPages(root, header, manpages); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"locktable.bash": "__start_locktable",
		"locktable.zsh":  "#compdef locktable",
		"locktable.fish": "complete -c locktable",
	} {
		b, err := os.ReadFile(filepath.Join(completions, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v; want it to contain %q", file, err, want)
		}
	}
	for page, want := range map[string]string{
		"locktable.1.gz":            `.TH "LOCKTABLE" "1" "Dec 2026" "locktable 1.2.3" "locktable manual"`,
		"locktable-check.1.gz":      `\fB--json\fP`,
		"locktable-version.1.gz":    "locktable-version - Print locktable's version",
		"locktable-completion.1.gz": "locktable-completion-bash(1)",
	} {
		f, err := os.Open(filepath.Join(manpages, page))
		if err != nil {
			t.Error(err)
			continue
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil || !strings.Contains(string(b), want) || zr.Name != "" || !zr.ModTime.IsZero() {
			t.Errorf("%s: %v, gzip name %q, time %v; want it to contain %q, no name, no time", page, err, zr.Name, zr.ModTime, want)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the page of a command that is gone is still there: %v", err)
	}
}
