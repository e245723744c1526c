package schema_test

import (
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
	// Every package whose tests call verify.XMLData or verify.Atom.
	cmd := exec.Command("go", "test", "-count=1",
		".", "./wrapper", "./nativefeed", "./transform", "./api", "./cmd/dynamo")
	cmd.Dir = copyRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in a bare copy of the checkout: %v\n%s", err, out)
	}
	t.Logf("in %s:\n%s", copyRoot, out)
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
