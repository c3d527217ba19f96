package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelIsSequential: model's code starts no goroutine and takes no
// lock, so the race detector has nothing to find in it; `make test` runs
// its tests without -race, which makes its oracle and spill tests several
// times slower. Code that brings concurrency into model fails here: move
// the package back under -race (the Makefile's RACE_FREE) when it does.
func TestModelIsSequential(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(".", name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "sync" || p == "sync/atomic" {
				t.Errorf("%s imports %s: model is tested without -race", fset.Position(imp.Pos()), p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s starts a goroutine: model is tested without -race", fset.Position(g.Pos()))
			}
			return true
		})
	}
}
