package cli

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// completions registers shell completion of the global flags' values.
// Nothing here reaches DynamoDB: values come from the flags' own sets,
// the config file and the schema it and the flags describe.
func (a *app) completions(root *cobra.Command) {
	register := func(flag string, f cobra.CompletionFunc) {
		if err := root.RegisterFlagCompletionFunc(flag, f); err != nil {
			panic(err) // a flag renamed without its completion: a bug
		}
	}
	register("layout", cobra.FixedCompletions([]string{
		cobra.CompletionWithDesc(string(model.LayoutSingle), "locks beside the accounts, one table"),
		cobra.CompletionWithDesc(string(model.LayoutTables), "a lock table per unique attribute"),
	}, cobra.ShellCompDirectiveNoFileComp))
	register("target", a.completeTargets)
	register("table", a.completeTables)
	register("normalize", a.completeNormalize)
	register("config", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	})
}

// completionFile reads the config file for a completion; a broken or
// missing one completes nothing.
func (a *app) completionFile() *config.File {
	f, _, err := config.Open(a.spec(), os.LookupEnv)
	if err != nil {
		return &config.File{}
	}
	return f
}

// completeTargets completes a target name, described by its settings'
// names.
func (a *app) completeTargets(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 { // target use NAME takes one
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, t := range a.completionFile().Targets {
		var names []string
		for _, s := range t.Settings {
			names = append(names, s.Name)
		}
		out = append(out, cobra.CompletionWithDesc(t.Name, strings.Join(names, ", ")))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeWithin is how long a tab waits for a local emulator's tables: a
// few milliseconds as a rule, but an emulator busy with other work (a
// test suite) took over a second, and the tables were then left out.
const completeWithin = 3 * time.Second

// completeTables completes --table with the tables the config's targets
// name and, when the endpoint is a loopback emulator, the tables it lists
// (ListTables, given up after completeWithin). AWS itself is not asked:
// that would take a request, and credentials, at every tab.
func (a *app) completeTables(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, t := range a.completionFile().Targets {
		if s := t.Setting("table"); s != nil && len(s.Values) == 1 && !slices.Contains(out, s.Values[0]) {
			out = append(out, s.Values[0])
		}
	}
	if a.settle() == nil && a.endpointURL != "" && backend.IsLoopback(a.endpointURL) {
		ctx, cancel := context.WithTimeout(cmd.Context(), completeWithin)
		defer cancel()
		if client, ep, err := dynamo.NewClient(ctx, dynamo.ClientOptions{EndpointURL: a.endpointURL, Region: a.region}); err == nil {
			if names, err := dynamo.Tables(ctx, client, ep); err == nil {
				for _, n := range names {
					if !slices.Contains(out, n) {
						out = append(out, n)
					}
				}
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// constraints returns the unique attributes of the schema the flags, the
// environment and the target describe.
func (a *app) constraints() []string {
	if a.settle() != nil {
		return nil
	}
	// Cobra parses the command line twice before it completes, so
	// repeated flags hold their values twice over.
	for _, list := range []*[]string{&a.schemaFlags.unique, &a.schemaFlags.normalize, &a.schemaFlags.index} {
		if n := len(*list) / 2; len(*list)%2 == 0 && slices.Equal((*list)[:n], (*list)[n:]) {
			*list = (*list)[:n]
		}
	}
	s, err := a.schema()
	if err != nil {
		return nil
	}
	var attrs []string
	for _, c := range s.Constraints {
		attrs = append(attrs, c.Attr)
	}
	return attrs
}

// completeNormalize completes ATTR=FORM for every unique attribute.
func (a *app) completeNormalize(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, attr := range a.constraints() {
		for _, n := range []model.Normalization{model.NormalizeNone, model.NormalizeLower, model.NormalizeCasefold} {
			out = append(out, attr+"="+string(n))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeConstraint completes repair --constraint.
func (a *app) completeConstraint(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return a.constraints(), cobra.ShellCompDirectiveNoFileComp
}

// completeKind completes repair --kind.
func completeKind(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, k := range model.ProblemKinds {
		out = append(out, string(k))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
