// Command gendocs writes locktable's shell completions (bash, zsh, fish)
// and gzipped man pages from its command tree, for release archives and
// packages:
//
//	go run ./tools/gendocs [-version 1.2.3] [-date UNIXTIME] [-completions DIR] [-manpages DIR]
//
// A release dates the pages with the commit's time, so that the same
// commit gives the same files; without -date, SOURCE_DATE_EPOCH or now.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/locktable/locktable/cli"
)

func main() {
	version := flag.String("version", "dev", "the version the man pages name")
	date := flag.Int64("date", 0, "the man pages' date, in Unix seconds; 0 or less: SOURCE_DATE_EPOCH, else now")
	completions := flag.String("completions", "completions", "directory for locktable.bash, locktable.zsh and locktable.fish")
	manpages := flag.String("manpages", "manpages", "directory for the man pages (locktable.1.gz, locktable-check.1.gz, ...)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gendocs [-version V] [-date UNIXTIME] [-completions DIR] [-manpages DIR]")
		os.Exit(2)
	}
	root := cli.Command(cli.BuildInfo{Version: *version})
	root.DisableAutoGenTag = true
	// Added when the command runs; here, so that its pages say how to
	// load completions.
	root.InitDefaultCompletionCmd()
	if err := writeCompletions(root, *completions); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	header := &doc.GenManHeader{Section: "1", Source: "locktable " + *version, Manual: "locktable manual"}
	// GoReleaser passes the zero time's -62135596800 when it has no git
	// information (a snapshot in a clone without a remote): no date then.
	if *date > 0 {
		t := time.Unix(*date, 0).UTC()
		header.Date = &t
	}
	if err := writeManPages(root, header, *manpages); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func writeCompletions(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, gen := range map[string]func(*bytes.Buffer) error{
		"locktable.bash": func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) },
		"locktable.zsh":  func(b *bytes.Buffer) error { return root.GenZshCompletion(b) },
		"locktable.fish": func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) },
	} {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeManPages writes one page per command, gzipped without a name or
// time in the gzip header, and removes the pages of commands that are gone.
func writeManPages(root *cobra.Command, header *doc.GenManHeader, dir string) error {
	tmp, err := os.MkdirTemp("", "locktable-man-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := doc.GenManTree(root, header, tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "locktable*.1.gz"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	pages, err := filepath.Glob(filepath.Join(tmp, "*.1"))
	if err != nil {
		return err
	}
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		if _, err := zw.Write(src); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(page)+".gz"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
