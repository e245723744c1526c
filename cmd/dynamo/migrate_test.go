package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// dynamo migrate applies the migrations once, says which, and finds
// nothing to do the second time.
func TestMigrate(t *testing.T) {
	dsn := pgtest.DSN(t)
	run := func() (string, int) {
		var out, errOut bytes.Buffer
		code := dispatch(context.Background(), []string{"migrate", "--db", dsn}, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
		if errOut.Len() > 0 {
			t.Logf("stderr: %s", errOut.String())
		}
		return out.String(), code
	}
	if out, code := run(); code != 0 || !strings.Contains(out, "applied 0001_initial.sql") {
		t.Errorf("first run: exit %d, output %q", code, out)
	}
	if out, code := run(); code != 0 || !strings.Contains(out, "up to date") {
		t.Errorf("second run: exit %d, output %q", code, out)
	}
	var errOut bytes.Buffer
	code := dispatch(context.Background(), []string{"migrate", "--db", "mysql://127.0.0.1/x"}, stdio{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &errOut})
	if code != 1 || !strings.Contains(errOut.String(), "mysql://") {
		t.Errorf("unknown DSN: exit %d, stderr %q", code, errOut.String())
	}
}
