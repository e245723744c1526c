package dates_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/dates"
	"github.com/dynamo-feeds/dynamo/internal/corpora"
)

// notMet lists the corpus cases Parse answers differently, and why.
var notMet = map[string]string{
	// The file takes its cases from feedparser's per-parser tests, where
	// "22013" is invalid for the W3C-DTF parser; "03335" has the same shape
	// (two-digit year, day of the year) and feedparser's ISO 8601 parser
	// reads both. A bare five-digit number is more often anything else than
	// a date, so Parse rejects both rather than guess.
	"03335": "YYDDD rejected: same shape as 22013, which the same file says is no date",
}

// Every case of feedparser's date tests: a valid one right to the second
// (in UTC), an invalid one rejected.
func TestFeedparserDateCases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpora.Dir(t), "feedparser-date-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Parser   string `json:"parser"`
		Input    string `json:"input"`
		Expected []int  `json:"expected"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, ok := dates.Parse(c.Input, nil)
		var msg string
		switch {
		case c.Expected == nil && ok:
			msg = "got " + got.UTC().Format(time.RFC3339) + ", want no date"
		case c.Expected != nil && !ok:
			msg = "no date"
		case c.Expected != nil:
			e := c.Expected
			want := time.Date(e[0], time.Month(e[1]), e[2], e[3], e[4], e[5], 0, time.UTC)
			if !got.Truncate(time.Second).Equal(want) {
				msg = "got " + got.UTC().Format(time.RFC3339) + ", want " + want.Format(time.RFC3339)
			}
		}
		if why, listed := notMet[c.Input]; listed {
			if msg == "" {
				t.Errorf("%s %q is met now: take it off notMet (%s)", c.Parser, c.Input, why)
			}
			continue
		}
		if msg != "" {
			t.Errorf("%s %q: %s", c.Parser, c.Input, msg)
		}
	}
}
