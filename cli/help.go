package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandGroups sort the root's commands in its help.
var commandGroups = []*cobra.Group{
	{ID: "read", Title: "Reading:"},
	{ID: "write", Title: "Writing (guarded transactions):"},
	{ID: "setup", Title: "Setting up:"},
}

// setHelp gives every command the usage below, and cobra's own commands
// (help, completion) examples like every other command.
func setHelp(root *cobra.Command) {
	root.SetUsageFunc(usage)
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  locktable help check\n  locktable help target use"
		case "completion":
			c.Example = "  locktable completion bash > /etc/bash_completion.d/locktable\n  locktable completion zsh > \"${fpath[1]}/_locktable\""
			for _, sh := range c.Commands() {
				sh.Example = fmt.Sprintf("  source <(locktable completion %s)", sh.Name())
				switch sh.Name() {
				case "fish":
					sh.Example = "  locktable completion fish | source"
				case "powershell":
					sh.Example = "  locktable completion powershell | Out-String | Invoke-Expression"
				}
			}
		}
	}
}

// usage is cobra's usage text with the global flags grouped: the root
// lists them by group, and a subcommand lists only its own flags and
// names the global ones in a few lines, instead of repeating two dozen.
func usage(c *cobra.Command) error {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  " + c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n\nAliases:\n  " + c.NameAndAliases())
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n" + strings.TrimRight(c.Example, "\n"))
	}
	writeCommands(&b, c)
	if c.HasParent() {
		writeOwnFlags(&b, c)
	} else {
		writeGroupedFlags(&b, c)
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	_, err := io.WriteString(c.OutOrStderr(), b.String())
	return err
}

// writeCommands lists the subcommands, by group where there are groups.
func writeCommands(b *strings.Builder, c *cobra.Command) {
	if !c.HasAvailableSubCommands() {
		return
	}
	list := func(title, group string) {
		var lines []string
		for _, sub := range c.Commands() {
			if sub.GroupID == group && (sub.IsAvailableCommand() || sub.Name() == "help") {
				lines = append(lines, fmt.Sprintf("\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short))
			}
		}
		if len(lines) > 0 {
			b.WriteString("\n\n" + title + strings.Join(lines, ""))
		}
	}
	if len(c.Groups()) == 0 {
		list("Available Commands:", "")
		return
	}
	for _, g := range c.Groups() {
		list(g.Title, g.ID)
	}
	list("Additional Commands:", "")
}

// writeGroupedFlags describes every flag of the root, group by group.
func writeGroupedFlags(b *strings.Builder, c *cobra.Command) {
	all := c.LocalFlags()
	grouped := map[string]bool{}
	section := func(title string, names []string) {
		fs := pflag.NewFlagSet(title, pflag.ContinueOnError)
		for _, n := range names {
			if f := all.Lookup(n); f != nil && !f.Hidden {
				fs.AddFlag(f)
			}
		}
		if fs.HasAvailableFlags() {
			fs.SortFlags = false
			b.WriteString("\n\n" + title + ":\n" + strings.TrimRight(fs.FlagUsages(), " \n"))
		}
	}
	for _, g := range flagGroups {
		section(capitalize(g.title)+" flags", g.flags)
		for _, n := range g.flags {
			grouped[n] = true
		}
	}
	var other []string
	all.VisitAll(func(f *pflag.Flag) {
		if !grouped[f.Name] {
			other = append(other, f.Name)
		}
	})
	section("Other flags", other)
}

// writeOwnFlags describes the command's own flags, then names the global
// ones by group: `locktable --help` describes them.
func writeOwnFlags(b *strings.Builder, c *cobra.Command) {
	if c.HasAvailableLocalFlags() {
		b.WriteString("\n\nFlags:\n" + strings.TrimRight(c.LocalFlags().FlagUsages(), " \n"))
	}
	inherited := c.InheritedFlags()
	if !inherited.HasAvailableFlags() {
		return
	}
	b.WriteString("\n\nGlobal flags (described in \"" + c.Root().Name() + " --help\"):")
	for _, g := range flagGroups {
		var names []string
		for _, n := range g.flags {
			if f := inherited.Lookup(n); f != nil && !f.Hidden {
				names = append(names, "--"+n)
			}
		}
		if len(names) > 0 {
			b.WriteString("\n" + wrapWords(fmt.Sprintf("  %-11s", g.title), names, 80))
		}
	}
}

// wrapWords writes words after lead, wrapping lines at width under lead's
// indentation.
func wrapWords(lead string, words []string, width int) string {
	var b strings.Builder
	line := lead
	for i, w := range words {
		if i > 0 && len(line)+1+len(w) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = strings.Repeat(" ", len(lead))
		} else if i > 0 {
			line += " "
		}
		line += w
	}
	b.WriteString(line)
	return b.String()
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
