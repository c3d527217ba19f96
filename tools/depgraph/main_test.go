package main

import (
	"os"
	"strings"
	"testing"
)

// TestDocsChartIsCurrent (issue 27): docs/development.md draws the
// packages and their imports (the README did until issue 39); a package
// added, or an import, changes the chart, and `make deps` redraws it.
func TestDocsChartIsCurrent(t *testing.T) {
	t.Parallel()
	g, err := load("../..")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Replace(string(page), g.chart())
	if err != nil {
		t.Fatal(err)
	}
	if want != string(page) {
		t.Error("docs/development.md's chart of the packages is not the packages' imports: run make deps")
	}
}

// TestChartLeavesOutImpliedArrows: an import that another path implies is
// not drawn, one that none does is.
func TestChartLeavesOutImpliedArrows(t *testing.T) {
	t.Parallel()
	g := graph{"a": {"b", "c"}, "b": {"c"}, "c": nil, "d": {"c"}}
	chart := g.chart()
	for _, want := range []string{"a --> b", "b --> c", "d --> c"} {
		if !strings.Contains(chart, "  "+want+"\n") {
			t.Errorf("no %s in:\n%s", want, chart)
		}
	}
	if strings.Contains(chart, "a --> c") {
		t.Errorf("a --> c is implied by a --> b --> c, and drawn:\n%s", chart)
	}
}
