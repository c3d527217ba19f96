package codeshape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fzipp/gocyclo"
)

// root is the module's directory, from this package's.
const root = "../.."

// maxComplexity is the cyclomatic complexity past which a function is
// hard to read at once (gocyclo's count: 1, plus one per if, for, case
// and && or ||).
const maxComplexity = 20

// complexFuncs are the functions still over maxComplexity, each with its
// ceiling: simplifying one lowers or drops its line; none may be added.
// Issue 27's goal is at most 5 lines here.
var complexFuncs = map[string]int{
	"model (Classifier).Classify": 23,
	"export (*query).write":       21,
	"dynamo (*Writer).transact":   21,
	"dialog (Model).updateKey":    22,
}

// TestFewComplexFunctions fails when a function passes maxComplexity
// that is not a known exception, or a known one grows.
func TestFewComplexFunctions(t *testing.T) {
	t.Parallel()
	stats := gocyclo.Analyze([]string{root}, regexp.MustCompile(`_test\.go$|/\.tools/|/bench/`))
	seen := map[string]bool{}
	for _, s := range stats.SortAndFilter(-1, maxComplexity) {
		name := s.PkgName + " " + s.FuncName
		seen[name] = true
		switch ceiling, known := complexFuncs[name]; {
		case !known:
			t.Errorf("%s (%s) has complexity %d, over %d: split it", name, s.Pos, s.Complexity, maxComplexity)
		case s.Complexity > ceiling:
			t.Errorf("%s (%s) has complexity %d, over its ceiling %d: split it", name, s.Pos, s.Complexity, ceiling)
		case s.Complexity < ceiling:
			t.Logf("%s is down to %d: lower its ceiling", name, s.Complexity)
		}
	}
	for name := range complexFuncs {
		if !seen[name] {
			t.Errorf("%s is no longer over %d: drop its line from complexFuncs", name, maxComplexity)
		}
	}
}

// maxExported is how many exported methods a type may have before it is
// doing more than one job.
const maxExported = 25

// wideTypes are the types that still export more methods, each with its
// ceiling: splitting one lowers or drops its line; none may be added.
// None is left (issue 27).
var wideTypes = map[string]int{}

// TestNoTypeDoesEverything fails when a type exports more than
// maxExported methods, counting those it promotes from the types it
// embeds, and is not a known exception, or a known one grows.
func TestNoTypeDoesEverything(t *testing.T) {
	t.Parallel()
	counts, err := exportedMethods(root)
	if err != nil {
		t.Fatal(err)
	}
	for typ, n := range counts {
		switch ceiling, known := wideTypes[typ]; {
		case n <= maxExported:
			if known {
				t.Errorf("%s exports %d methods, no more than %d: drop its line from wideTypes", typ, n, maxExported)
			}
		case !known:
			t.Errorf("%s exports %d methods, over %d: split it by role", typ, n, maxExported)
		case n > ceiling:
			t.Errorf("%s exports %d methods, over its ceiling %d: split it by role", typ, n, ceiling)
		}
	}
}

// module is the import path of the module's root (go.mod).
const module = "github.com/locktable/locktable"

// typeInfo is what exportedMethods reads of one type: the exported
// methods declared on it, and the types it embeds (struct fields or
// interfaces), by their key.
type typeInfo struct {
	methods  map[string]bool
	embedded []string
}

// exportedMethods counts, per type (package directory and name), the
// exported methods in its method set as the module's non-test files
// declare it: its own, and those it promotes from the types it embeds
// that the module declares (a syntactic walk: a promoted name that two
// embedded types share counts once, as do its own that shadow one).
func exportedMethods(dir string) (map[string]int, error) {
	types := map[string]*typeInfo{}
	info := func(key string) *typeInfo {
		if types[key] == nil {
			types[key] = &typeInfo{methods: map[string]bool{}}
		}
		return types[key]
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != dir && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel(dir, filepath.Dir(path))
		pkg = filepath.ToSlash(pkg)
		imports := moduleImports(f)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv != nil && decl.Name.IsExported() {
					info(pkg + "." + receiver(decl.Recv.List[0].Type)).methods[decl.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok {
						t := info(pkg + "." + ts.Name.Name)
						t.embedded = append(t.embedded, embeds(ts.Type, pkg, imports)...)
					}
				}
			}
		}
		return nil
	})
	counts := map[string]int{}
	for key := range types {
		if n := len(methodSet(key, types, map[string]bool{})); n > 0 {
			counts[key] = n
		}
	}
	return counts, err
}

// moduleImports maps the names f imports the module's packages by to
// their directories in the module.
func moduleImports(f *ast.File) map[string]string {
	dirs := map[string]string{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		dirs[name] = rel
	}
	return dirs
}

// embeds returns the keys of the module's types that type expression e,
// declared in package pkg, embeds: a struct's anonymous fields, an
// interface's embedded interfaces.
func embeds(e ast.Expr, pkg string, imports map[string]string) []string {
	var fields []*ast.Field
	switch e := e.(type) {
	case *ast.StructType:
		fields = e.Fields.List
	case *ast.InterfaceType:
		fields = e.Methods.List
	}
	var keys []string
	for _, f := range fields {
		if len(f.Names) > 0 {
			continue
		}
		t := f.Type
		if star, ok := t.(*ast.StarExpr); ok {
			t = star.X
		}
		switch t := t.(type) {
		case *ast.Ident:
			keys = append(keys, pkg+"."+t.Name)
		case *ast.SelectorExpr:
			if x, ok := t.X.(*ast.Ident); ok && imports[x.Name] != "" {
				keys = append(keys, imports[x.Name]+"."+t.Sel.Name)
			}
		}
	}
	return keys
}

// methodSet is the exported method names of type key, its own and those
// it promotes; seen guards against a cycle of embedding.
func methodSet(key string, types map[string]*typeInfo, seen map[string]bool) map[string]bool {
	t := types[key]
	if t == nil || seen[key] {
		return nil
	}
	seen[key] = true
	set := maps.Clone(t.methods)
	for _, e := range t.embedded {
		maps.Copy(set, methodSet(e, types, seen))
	}
	return set
}

// receiver is the name of a method's receiver type, without its pointer
// or type parameters.
func receiver(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiver(e.X)
	case *ast.IndexExpr:
		return receiver(e.X)
	case *ast.IndexListExpr:
		return receiver(e.X)
	case *ast.Ident:
		return e.Name
	}
	return fmt.Sprintf("%T", e)
}
