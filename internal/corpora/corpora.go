// Package corpora finds the public feed corpora (gofeed's and feedparser's
// test files) that optional robustness tests read. They are not part of the
// project: they live in ../shared/corpora beside the project's root, or
// wherever DYNAMO_CORPORA names, and a test that wants them skips, saying
// why in one line, when they are absent.
package corpora

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpora folder, or skips the test when there is none.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("DYNAMO_CORPORA")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Skipf("corpora: %v", err)
		}
		dir = filepath.Join(filepath.Dir(root), "shared", "corpora")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Skipf("corpora absent (%s): set DYNAMO_CORPORA or put them in ../shared/corpora", dir)
	}
	return dir
}

// moduleRoot is the nearest folder above the working directory (a test's
// package folder) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
