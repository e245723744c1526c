package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes: asking for help exits 0 at every level, a mistake on the
// command line exits 2, and the bare command (no subcommand) is a mistake.
func TestExitCodes(t *testing.T) {
	var lines [][]string
	for name := range commands {
		lines = append(lines, []string{name})
	}
	lines = append(lines, []string{"sources", "import"}, []string{"sources", "export"},
		[]string{"policy", "allocate"}, []string{"policy", "weekday"}, []string{"policy", "rank"})
	for _, cmd := range lines {
		for _, help := range []string{"-h", "--help"} {
			if code, _, stderr := run(t, "", append(cmd, help)...); code != 0 {
				t.Errorf("dynamo %s %s: exit %d, want 0; stderr %q", strings.Join(cmd, " "), help, code, stderr)
			}
		}
		if code, _, stderr := run(t, "", append(cmd, "--no-such-flag")...); code != 2 || !strings.Contains(stderr, "no-such-flag") {
			t.Errorf("dynamo %s --no-such-flag: exit %d, want 2 naming the flag; stderr %q", strings.Join(cmd, " "), code, stderr)
		}
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stdout bool // whether the usage goes to stdout (asked for) or stderr (a mistake)
	}{
		{nil, 2, false},
		{[]string{"no-such-command"}, 2, false},
		{[]string{"help"}, 0, true},
		{[]string{"-h"}, 0, true},
		{[]string{"--help"}, 0, true},
		{[]string{"sources"}, 2, false},
		{[]string{"policy"}, 2, false},
		{[]string{"sources", "help"}, 0, true},
		{[]string{"policy", "help"}, 0, true},
	} {
		code, stdout, stderr := run(t, "", tc.args...)
		out := stderr
		if tc.stdout {
			out = stdout
		}
		if code != tc.code || !strings.Contains(strings.ToLower(out), "usage") {
			t.Errorf("dynamo %s: exit %d, want %d with the usage on %s; stdout %q, stderr %q",
				strings.Join(tc.args, " "), code, tc.code, map[bool]string{true: "stdout", false: "stderr"}[tc.stdout], stdout, stderr)
		}
	}
}

// TestServeRefusesBadPollerFlags: a mistyped --policy and a --workers below
// one are mistakes on the command line, as docs/OPERATIONS.md says of a bad
// flag value: exit 2 naming the flag, before the address is bound or the
// embedded store's file created. (A mistyped policy used to exit 1 after
// creating and migrating the store; --workers 0 was taken for 8.)
func TestServeRefusesBadPollerFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "fastest"}, `--policy must be one of flat, smart`},
		{[]string{"--policy", "Smart"}, `not "Smart"`},
		{[]string{"--workers", "0"}, "--workers must be at least 1, not 0"},
		{[]string{"--workers", "-3"}, "--workers must be at least 1, not -3"},
	} {
		db := filepath.Join(t.TempDir(), "dynamo.db")
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, tc.args...)
		code, _, stderr := run(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("dynamo %s: exit %d, want 2 saying %q; stderr %q", strings.Join(args, " "), code, tc.want, stderr)
		}
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("dynamo %s: the store's file exists (%v); a refused command line must create nothing", strings.Join(args, " "), err)
		}
	}
}

// TestServeOnATakenPort: a serve whose address is taken (a second demo,
// say) exits 1 saying so and what to do, and creates no store
// (docs/OPERATIONS.md "Exit codes").
func TestServeOnATakenPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	db := filepath.Join(t.TempDir(), "dynamo.db")
	code, _, stderr := run(t, "", "serve", "--addr", ln.Addr().String(), "--db", db)
	if code != 1 || !strings.Contains(stderr, "another process serves on "+ln.Addr().String()+"; stop it, or give this one another address with --addr") {
		t.Errorf("serve on a taken port: exit %d, stderr %q; want 1 saying the address is taken and naming --addr", code, stderr)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("serve on a taken port created the store's file (%v)", err)
	}
}
