package cli

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/clock"
	"github.com/spf13/cobra"
)

// help runs `locktable ARGS... --help` and returns what it printed.
func help(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), clock.System(), BuildInfo{Version: "test"}, append(args, "--help"), &stdout, &stderr); code != 0 || stderr.Len() > 0 {
		t.Fatalf("%v --help: exit %d, stderr %q", args, code, stderr.String())
	}
	return stdout.String()
}

func TestEveryCommandHasExamples(t *testing.T) {
	root := (&app{stdout: io.Discard, stderr: io.Discard}).rootCommand(BuildInfo{Version: "test"})
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		out := help(t, path...)
		if !regexp.MustCompile(`\nExamples:\n(  #.*\n)*  .*locktable`).MatchString(out) {
			t.Errorf("locktable %s --help has no Examples section:\n%s", strings.Join(path, " "), out)
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				walk(sub, append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	walk(root, nil)
}

func TestHelpGroupsGlobalFlags(t *testing.T) {
	out := help(t)
	// Each group in order, each with its flags described under it.
	at := 0
	for _, g := range flagGroups {
		title := "\n" + strings.ToUpper(g.title[:1]) + g.title[1:] + " flags:\n"
		i := strings.Index(out, title)
		if i < at {
			t.Fatalf("no %q after the previous group:\n%s", title, out)
		}
		at = i
		section, _, _ := strings.Cut(out[i+len(title):], "\n\n")
		for _, f := range g.flags {
			if f == "json" { // a subcommand's own flag
				continue
			}
			if !regexp.MustCompile(`(?m)^ .*--` + f + `\b.*\S`).MatchString(section) {
				t.Errorf("group %s does not describe --%s:\n%s", g.title, f, section)
			}
		}
	}
	// Every flag of the root has a group: only help and version are left.
	_, other, _ := strings.Cut(out, "\nOther flags:\n")
	other, _, _ = strings.Cut(other, "\n\n")
	for _, l := range strings.Split(other, "\n") {
		if !strings.Contains(l, "--help") && !strings.Contains(l, "--version") {
			t.Errorf("a flag without a group: %q", l)
		}
	}

	// A subcommand describes its own flags and names the global ones in
	// a few lines instead of describing them again.
	sub := help(t, "check")
	if !regexp.MustCompile(`\n      --json +print the report as one JSON object`).MatchString(sub) {
		t.Errorf("check --help does not describe --json:\n%s", sub)
	}
	if strings.Contains(sub, "--endpoint-url string") || strings.Contains(sub, "parallel scan segments") {
		t.Errorf("check --help describes the global flags again:\n%s", sub)
	}
	_, global, ok := strings.Cut(sub, "Global flags (described in \"locktable --help\"):\n")
	if !ok || strings.Count(strings.TrimSpace(global), "\n") > 7 ||
		!strings.Contains(global, "  connection --endpoint-url --region --profile --demo --target --config\n") {
		t.Errorf("check --help's global flags:\n%s", global)
	}
}
