package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/discovery"
)

// discoverSite serves a WordPress-like site on loopback: a page declaring a
// comments feed and a feed that is really HTML, and its feed at /feed/.
func discoverSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!DOCTYPE html><html><head><meta name="generator" content="WordPress 6.5">
			<link rel="alternate" type="application/rss+xml" title="Posts" href="/posts.rss">
			</head><body><a href="/comments/feed/">Comments RSS</a></body></html>`)
	})
	mux.HandleFunc("/posts.rss", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, `<!DOCTYPE html><html><body>Our feed moved.</body></html>`)
	})
	rss := func(title string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/rss+xml")
			io.WriteString(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>`+title+
				`</title><link>http://example.org/</link><description>d</description><item><title>a</title><guid>a</guid></item></channel></rss>`)
		}
	}
	mux.HandleFunc("/comments/feed/", rss("Comments"))
	mux.HandleFunc("/feed/", rss("Posts"))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestDiscoverCommand(t *testing.T) {
	t.Parallel()
	srv := discoverSite(t)
	u := srv.URL
	code, stdout, stderr := run(t, "", "discover", u+"/", "--allow-private")
	if code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr)
	}
	want := `page:       ` + u + `/
platform:   wordpress

candidates (3):
     URL                         TYPE  FOUND BY                 CHECK                                                                 TITLE
     ` + u + `/posts.rss          rss     link-alternate           not a feed (the body served as application/rss+xml did not parse as one)  Posts
     ` + u + `/comments/feed/     rss   anchor                   feed                                                                  Comments RSS
  *  ` + u + `/feed/              rss   platform-path:wordpress  feed                                                                  

chosen:     ` + u + `/feed/ (rss, found by platform-path:wordpress)

tried (4):
  ` + u + `/
  ` + u + `/posts.rss
  ` + u + `/comments/feed/
  ` + u + `/feed/
`
	if normalizeSpace(stdout) != normalizeSpace(want) {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
}

// normalizeSpace collapses runs of spaces, so that the comparison does not
// depend on the width of the test server's port in the table's columns.
func normalizeSpace(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

func TestDiscoverCommandJSON(t *testing.T) {
	t.Parallel()
	srv := discoverSite(t)
	code, stdout, stderr := run(t, "", "discover", "--allow-private", "--json", srv.URL)
	if code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr)
	}
	var res discovery.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if res.Chosen == nil || res.Chosen.URL != srv.URL+"/feed/" || res.Chosen.How != "platform-path:wordpress" || !res.Chosen.Verified {
		t.Errorf("chosen %+v", res.Chosen)
	}
	if len(res.Tried) != 4 || res.Platform != "wordpress" || len(res.Candidates) != 3 {
		t.Errorf("result %+v", res)
	}
}

func TestDiscoverCommandFailures(t *testing.T) {
	t.Parallel()
	srv := discoverSite(t)
	blank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "<html><body>No feed here.</body></html>")
	}))
	t.Cleanup(blank.Close)

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // in the output
		stderr string // in the errors
	}{
		{"private address refused without the flag", []string{srv.URL}, 1, "", "refused"},
		{"no feed anywhere", []string{"--allow-private", blank.URL + "/"}, 1, "chosen:     none", "no feed found (14 URLs tried)"},
		{"the page cannot be read", []string{"--allow-private", srv.URL + "/missing"}, 1, "tried (1)", "404"},
		{"no URL", nil, 2, "", "want one URL, got 0"},
		{"two URLs", []string{"http://a.example/", "http://b.example/"}, 2, "", "want one URL, got 2"},
		{"not a URL", []string{"example.org"}, 2, "", "not an http or https URL"},
		{"bad timeout", []string{"--timeout", "-1s", "http://a.example/"}, 2, "", "--timeout must be positive"},
		{"unknown flag", []string{"--fast", "http://a.example/"}, 2, "", "flag provided but not defined"},
		{"help", []string{"-h"}, 0, "", "usage: dynamo discover"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "", append([]string{"discover"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tt.stdout, stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}
