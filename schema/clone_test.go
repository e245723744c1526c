package schema_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaTestsPassInABareCopy copies the checkout (the files git knows,
// committed or not) into a temporary directory with nothing beside it, as a
// fresh `git clone` would be, and runs the tests that validate documents
// against the schemas there. They must find everything they need inside the
// repository.
func TestSchemaTestsPassInABareCopy(t *testing.T) {
	root := moduleRoot(t)
	files, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	copyRoot := filepath.Join(t.TempDir(), "dynamo")
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(copyRoot, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(copyRoot), "shared")); err == nil {
		t.Fatal("the copy has a shared/ beside it")
	}
	// Every test that calls verify.XMLData or verify.Atom itself, in every
	// package that has one: verify is the one place that reads the
	// schemas, so these show that it finds them inside the repository.
	// The packages' other tests would only make the run longer, and so
	// would their full sizes: with -short they validate the same kinds of
	// document on smaller archives (the suite runs them whole outside).
	pkgs, tests := schemaTests(t, copyRoot)
	if len(tests) == 0 {
		t.Fatal("no test calls verify.XMLData or verify.Atom")
	}
	args := append([]string{"test", "-count=1", "-short", "-run", "^(" + strings.Join(tests, "|") + ")$"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = copyRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in a bare copy of the checkout: %v\n%s", err, out)
	}
	t.Logf("in %s:\n%s", copyRoot, out)
}

// schemaTests lists the packages below root (as ./relative paths) and the
// names of their top-level tests and fuzz targets that call verify.XMLData
// or verify.Atom, themselves or through their package's helpers.
func schemaTests(t *testing.T, root string) (pkgs, tests []string) {
	t.Helper()
	funcs := map[string]map[string]*ast.BlockStmt{} // package dir → function name → body
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if funcs[dir] == nil {
			funcs[dir] = map[string]*ast.BlockStmt{}
		}
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Body != nil {
				funcs[dir][fn.Name.Name] = fn.Body
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing the schema tests: %v", err)
	}
	seenTest := map[string]bool{}
	for dir, bodies := range funcs {
		verifying := verifyingFuncs(bodies)
		found := false
		for name := range verifying {
			if (strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Fuzz")) && !seenTest[name] {
				seenTest[name] = true
				tests = append(tests, name)
			}
			found = found || strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Fuzz")
		}
		if found {
			rel, err := filepath.Rel(root, dir)
			if err != nil {
				t.Fatal(err)
			}
			pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
		}
	}
	return pkgs, tests
}

// verifyingFuncs names the functions among bodies that call verify.XMLData
// or verify.Atom, directly or through another of them.
func verifyingFuncs(bodies map[string]*ast.BlockStmt) map[string]bool {
	verifying := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for name, body := range bodies {
			if !verifying[name] && calls(body, verifying) {
				verifying[name] = true
				changed = true
			}
		}
	}
	return verifying
}

// calls reports whether body calls verify.XMLData, verify.Atom or one of
// the functions named in helpers.
func calls(body *ast.BlockStmt, helpers map[string]bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == "verify" && (n.Sel.Name == "XMLData" || n.Sel.Name == "Atom") {
				found = true
			}
		case *ast.Ident:
			found = found || helpers[n.Name]
		}
		return !found
	})
	return found
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
