package repocheck_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// source is what the module declares, read with go/parser from every .go
// file under the root (tests and every build tag's files included, testdata
// and node_modules left out).
type source struct {
	// pkgs maps a package's name ("downstream"; an external test package's
	// "_test" dropped) and its folder ("mcp/downstream"; "main" for the
	// root) to the top-level names its packages declare.
	pkgs map[string]map[string]bool
	// members maps a type's name ("Core") to the methods and fields of
	// every type of that name in the module.
	members map[string]map[string]bool
	// qualified maps "pkg.Type" (pkg as in pkgs) to that type's members.
	qualified map[string]map[string]bool
	// words holds every identifier-like word of the source, comments and
	// strings included (a JSON key, a constant's name).
	words map[string]bool
}

// addWords adds every identifier-like word of text to words (a loop, not a
// regexp: it reads the whole module, and -race slows a regexp tenfold).
func addWords(words map[string]bool, text []byte) {
	start := -1
	for i := 0; i <= len(text); i++ {
		c := byte(' ')
		if i < len(text) {
			c = text[i]
		}
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		switch {
		case start < 0 && letter:
			start = i
		case start >= 0 && !letter && (c < '0' || c > '9'):
			words[string(text[start:i])] = true
			start = -1
		}
	}
}

func readSource(t *testing.T, dir string) *source {
	t.Helper()
	src := &source{pkgs: map[string]map[string]bool{}, members: map[string]map[string]bool{}, qualified: map[string]map[string]bool{}, words: map[string]bool{}}
	add := func(m map[string]map[string]bool, key, name string) {
		if m[key] == nil {
			m[key] = map[string]bool{}
		}
		m[key][name] = true
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != dir && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		addWords(src.words, text)
		f, err := parser.ParseFile(fset, path, text, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		folder := filepath.ToSlash(rel)
		if folder == "." {
			folder = "main"
		}
		keys := []string{strings.TrimSuffix(f.Name.Name, "_test"), folder}
		member := func(typ, name string) {
			add(src.members, typ, name)
			for _, k := range keys {
				add(src.qualified, k+"."+typ, name)
			}
		}
		for _, decl := range f.Decls {
			var names []string
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names = append(names, d.Name.Name)
				} else if typ := recvType(d.Recv.List[0].Type); typ != "" {
					member(typ, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names = append(names, n.Name)
						}
					case *ast.TypeSpec:
						names = append(names, s.Name.Name)
						for _, f := range fieldsOf(s.Type) {
							member(s.Name.Name, f)
						}
						if _, ok := src.members[s.Name.Name]; !ok {
							src.members[s.Name.Name] = map[string]bool{}
						}
					}
				}
			}
			for _, n := range names {
				for _, k := range keys {
					add(src.pkgs, k, n)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's source: %v", err)
	}
	return src
}

// recvType names a method's receiver type: "Core" for *Core, Core[T] and
// the like.
func recvType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvType(x.X)
	case *ast.IndexExpr:
		return recvType(x.X)
	case *ast.IndexListExpr:
		return recvType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// fieldsOf lists a struct's fields (an embedded one by its type's name) or
// an interface's methods.
func fieldsOf(e ast.Expr) []string {
	var list *ast.FieldList
	switch x := e.(type) {
	case *ast.StructType:
		list = x.Fields
	case *ast.InterfaceType:
		list = x.Methods
	default:
		return nil
	}
	var names []string
	for _, f := range list.List {
		if len(f.Names) == 0 {
			if n := recvType(f.Type); n != "" {
				names = append(names, n)
			} else if sel, ok := f.Type.(*ast.SelectorExpr); ok {
				names = append(names, sel.Sel.Name)
			}
		}
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return string(data)
}
