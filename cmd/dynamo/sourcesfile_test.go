package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/sources"
)

// A JSON sources file, decoded entry by entry, reads as the same file in
// YAML does, in both forms, and refuses what is not a list of sources.
func TestParseSourcesFileJSONAsYAML(t *testing.T) {
	svc := &sources.Service{Policies: policy.Names()}
	yamlFile := "sources:\n  - {id: a, url: 'http://127.0.0.1/a', kind: html, interval: 30m, category: news}\n  - {id: b, url: 'http://127.0.0.1/b', policy: hourly}\n"
	want, err := parseSourcesFile([]byte(yamlFile), svc)
	if err != nil || len(want) != 2 {
		t.Fatalf("YAML: %d sources, %v", len(want), err)
	}
	entries := `[{"id":"a","url":"http://127.0.0.1/a","kind":"html","interval":"30m","category":"news"},{"id":"b","url":"http://127.0.0.1/b","policy":"hourly"}]`
	for name, file := range map[string]string{
		"list":   entries,
		"object": `{"comment": {"any": ["thing"]}, "sources": ` + entries + `, "after": 1}`,
	} {
		got, err := parseSourcesFile([]byte(file), svc)
		if err != nil || len(got) != len(want) {
			t.Fatalf("JSON %s: %d sources, %v", name, len(got), err)
		}
		for i := range want {
			got[i].CreatedAt, want[i].CreatedAt = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("JSON %s, entry %d: %+v, YAML %+v", name, i+1, got[i], want[i])
			}
		}
	}
	for name, file := range map[string]string{
		"no sources key":     `{"other": []}`,
		"sources not a list": `{"sources": {"id": "a"}}`,
		"a number":           `3`,
	} {
		if _, err := parseSourcesFile([]byte(file), svc); err == nil || !strings.Contains(err.Error(), "list of sources") {
			t.Errorf("%s: %v, want the list-of-sources error", name, err)
		}
	}
}

// parseSourcesFile collects what eachFileSource reads and checks.
func parseSourcesFile(data []byte, svc *sources.Service) ([]dynamo.Source, error) {
	var list []dynamo.Source
	err := eachFileSource(data, svc, func(src *dynamo.Source) error {
		list = append(list, *src)
		return nil
	})
	return list, err
}

// yamlSeeds are sources files in YAML of every shape: the forms read entry
// by entry and those read whole.
var yamlSeeds = []string{
	// README.md's example.
	"sources:\n  - id: town\n    url: https://example.org/news.html\n    kind: html\n    interval: 30m\n    timezone: Europe/Paris\n  - id: wire\n    url: https://example.org/feed.xml\n    policy: hourly\n    category: news\n",
	"- id: a\n  url: http://127.0.0.1/a\n- id: b\n  url: http://127.0.0.1/b\n",
	"# sources\n---\n- {id: a, url: 'http://127.0.0.1/a'}\n\n# b\n- id: b # the second\n  url: \"http://127.0.0.1/b\"\n",
	"before: {x: 1}\nsources: # the list\n- id: a\n  url: http://127.0.0.1/a\nafter:\n  - 1\n",
	"sources:\r\n  - id: a\r\n    url: http://127.0.0.1/a\r\n  - id: b\r\n    url: http://127.0.0.1/b\r\n",
	"- id: a\n  title: |\n    two\n    - lines\n  url: http://127.0.0.1/a\n",
	"- id: a\n  title: \"a quote\n- running on\"\n- id: b\n",
	"- id: a\n  title: 'single\n- quoted'\n",
	"- &d {id: a, interval: 30m}\n- <<: *d\n  id: b\n",
	"defaults: &d\n  interval: 30m\nsources:\n  - <<: *d\n    id: a\n",
	"- !!str a\n",
	"%YAML 1.2\n---\n- id: a\n",
	"- id: a\n---\n- id: b\n",
	"- id: a\n...\n",
	"sources: [{id: a}, {id: b}]\n",
	"sources:\n  - id: a\nsources:\n  - id: b\n",
	"other:\n- x\n",
	"other:\n- x\nsources:\n- id: a\n",
	"sources:\n  - id: a\n  - id: a\n",
	"- id: a\n  id: b\n",
	"- id: a\n  - x\n",
	"- - nested\n- 3\n-\n- null\n",
	"sources:\n\t- id: a\n",
	"- {1: a}\n",
	"sources:\n  id: a\n",
	"  - id: a\n",
	"sources:\n- a\n  sources:\n- b\nafter: 1\n",
	"a: 1\n  b: 2\nsources:\n- id: x\n",
	"",
	"sources:\n",
	"- x\ny: 1\n",
	"a: \"x\nsources:\n- b\n\"\nsources: []\n",
	"sources:#\n- a\n",
	"- a\r- b\n",
}

// TestYAMLEntriesEntryByEntry: the block-sequence forms are read entry by
// entry, and each seed reads as yaml.v3 reads it whole (FuzzYAMLEntries).
func TestYAMLEntriesEntryByEntry(t *testing.T) {
	for i, seed := range yamlSeeds[:6] {
		n, done, err := eachYAMLEntryAlone([]byte(seed), func([]byte) error { return nil })
		whole := 0
		eachYAMLEntryWhole([]byte(seed), 0, func([]byte) error { whole++; return nil })
		if n != whole || !done || err != nil {
			t.Errorf("seed %d: %d entries read alone (done %v, %v), want all %d, entry by entry:\n%s", i, n, done, err, whole, seed)
		}
	}
	for _, seed := range yamlSeeds {
		sameAsWhole(t, []byte(seed))
	}
}

// FuzzYAMLEntries: whatever the file, eachYAMLEntry hands the entries
// decoding it whole gives, or fails with the same error.
func FuzzYAMLEntries(f *testing.F) {
	for _, seed := range yamlSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsWhole(t, data)
	})
}

// sameAsWhole fails unless eachYAMLEntry reads data as
// eachYAMLEntryWhole does.
func sameAsWhole(t *testing.T, data []byte) {
	t.Helper()
	read := func(each func([]byte, func([]byte) error) error) ([]string, error) {
		var got []string
		err := each(data, func(raw []byte) error {
			got = append(got, string(raw))
			return nil
		})
		return got, err
	}
	got, err := read(eachYAMLEntry)
	want, wantErr := read(func(data []byte, add func([]byte) error) error { return eachYAMLEntryWhole(data, 0, add) })
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || wantErr == nil && !slices.Equal(got, want) {
		t.Errorf("%q: entries %q, error %v; read whole: %q, %v", data, got, err, want, wantErr)
	}
}

// TestSourcesFileWithNoEntries: a sources file whose every entry is
// commented out, or that is empty, means no sources, as "sources: []"
// does: serve starts and serves (it refused to start, "want a list of
// sources"). A mapping without a "sources" key is still refused.
func TestSourcesFileWithNoEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, text := range []string{
		"",
		"# no sources yet\n",
		"sources:\n",
		"sources:\n#  - id: town\n#    url: https://example.org/news.html\n",
		"---\nsources: []\n",
	} {
		file := filepath.Join(dir, fmt.Sprintf("sources-%d.yaml", i))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		base := startServe(t, serveConfig{db: sqlitetest.Path(t, dir, fmt.Sprintf("dynamo-%d.db", i)), sourcesFile: file})
		var list struct{ Sources []any }
		getJSON(t, base+"/api/sources", &list)
		if len(list.Sources) != 0 {
			t.Errorf("sources file %q: %d sources, want none", text, len(list.Sources))
		}
	}
	file := filepath.Join(dir, "typo.yaml")
	os.WriteFile(file, []byte("source:\n  - id: town\n    url: https://example.org/news.html\n"), 0o644)
	code, _, stderr := run(t, "", "serve", "--addr", "127.0.0.1:0", "--db", sqlitetest.Path(t, dir, "typo.db"), "--sources", file)
	if code != 1 || !strings.Contains(stderr, `want a list of sources, or an object with a \"sources\" list`) {
		t.Errorf("a mapping without sources: exit %d, stderr %q; want 1 saying what the file must hold", code, stderr)
	}
}

// TestBadSourcesFileCreatesNoStore: a sources file with a mistake stops
// serve before the store is opened, as a port that cannot be bound does
// (docs/OPERATIONS.md): the embedded store's file is not created, nor is a
// database migrated, for a command that changed nothing.
func TestBadSourcesFileCreatesNoStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, tc := range []struct{ text, want string }{
		{"sources:\n  - id: town\n    url: https://example.org/news.html\n    intervall: 30m\n", `entry 1, line 4: unknown key \"intervall\": did you mean \"interval\"?`},
		{"- id: town\n  url: https://example.org/news.html\n  interval: 5s\n", "entry 1: invalid: interval 5s must be from 10s to 30d"},
		{"- id: town\n  url: https://example.org/news.html\n  policy: fastest\n", `policy \"fastest\" is unknown`},
	} {
		file := filepath.Join(dir, fmt.Sprintf("bad-%d.yaml", i))
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, fmt.Sprintf("bad-%d.db", i))
		code, _, stderr := run(t, "", "serve", "--addr", "127.0.0.1:0", "--db", db, "--sources", file)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("sources file %q: exit %d, stderr %q; want 1 saying %s", tc.text, code, stderr, tc.want)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Errorf("sources file %q: the store's file exists (%v); a refused file must create nothing", tc.text, err)
		}
	}
}
