package reliability_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// changingOrigin serves an annotated page at /news that changes on every
// request: request n gets generation n, whose newest story is "Story n".
// Every successful poll therefore has a new version to store, and each
// stored version says which request it came from. Each answer takes delay,
// so that polls are in flight when a test breaks something.
type changingOrigin struct {
	*httptest.Server
	generation atomic.Int64
	// padding, when set, is how many bytes of text the newest story's
	// description gets, to make a version as large as a test needs.
	padding atomic.Int64
}

func newChangingOrigin(t testing.TB, delay time.Duration) *changingOrigin {
	t.Helper()
	o := &changingOrigin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := o.generation.Add(1)
		time.Sleep(delay)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, paddedPage(int(g), int(o.padding.Load())))
	}))
	t.Cleanup(o.Close)
	return o
}

// generationPage is generation g of the changing page: the five newest
// stories, newest first.
func generationPage(g int) string { return paddedPage(g, 0) }

// paddedPage is generation g with pad bytes of words added to the newest
// story's description.
func paddedPage(g, pad int) string {
	var b strings.Builder
	b.WriteString("<html><body><h1><!-- <channel:title> -->Town news<!-- </channel:title> --></h1>\n<ul>\n")
	for i, n := 1, g; n >= 1 && i <= 5; i, n = i+1, n-1 {
		fmt.Fprintf(&b, `<li><!-- <item:title index="%d"> -->Story %d<!-- </item:title> -->
<!-- <item:link index="%d"> --><a href="/story/%d.html">more</a><!-- </item:link> -->
<!-- <item:description index="%d"> --><p>Story %d, told <b>at length</b>.%s</p><!-- </item:description> --></li>
`, i, n, i, n, i, n, padding(i, g, pad))
	}
	b.WriteString("</ul></body></html>\n")
	return b.String()
}

// padding is the text added to item i of generation g: pad bytes of
// words unique to the generation, for the newest story only.
func padding(i, g, pad int) string {
	if i != 1 || pad == 0 {
		return ""
	}
	word := fmt.Sprintf(" word%d", g)
	return strings.Repeat(word, pad/len(word)+1)
}

// generationOf reads which generation a stored document is: the number in
// its first story's title.
func generationOf(t testing.TB, doc *dynamo.Resource) int {
	t.Helper()
	var g int
	if len(doc.Items) == 0 {
		t.Fatalf("version without items: %+v", doc)
	}
	if _, err := fmt.Sscanf(doc.Items[0].Title, "Story %d", &g); err != nil {
		t.Fatalf("first item %q is not a generation's story: %v", doc.Items[0].Title, err)
	}
	return g
}

// checkVersions checks a source's whole archive against the changing
// origin: sequence numbers 1..n without gaps, each version rebuilding to
// exactly the content the wrapper makes of its generation's page, and
// generations strictly increasing, so no poll was stored twice. It returns
// the number of versions.
func checkVersions(t testing.TB, st dynamo.Store, id, pageURL string) int {
	t.Helper()
	return checkVersionsPadded(t, st, id, pageURL, 0)
}

// checkVersionsPadded is checkVersions for an origin whose pages carry pad
// bytes of padding.
func checkVersionsPadded(t testing.TB, st dynamo.Store, id, pageURL string, pad int) int {
	t.Helper()
	ctx := context.Background()
	vs, err := st.Versions(ctx, id)
	if err != nil {
		t.Fatalf("versions of %s: %v", id, err)
	}
	last := 0
	for i := len(vs) - 1; i >= 0; i-- { // oldest first
		v := vs[i]
		if want := len(vs) - i; v.Seq != want {
			t.Fatalf("version sequence numbers have a gap or repeat: found %d where %d belongs", v.Seq, want)
		}
		doc, _, err := st.Document(ctx, id, v.Index)
		if err != nil {
			t.Fatalf("version %d does not rebuild: %v", v.Seq, err)
		}
		g := generationOf(t, doc)
		if g <= last {
			t.Fatalf("version %d holds generation %d after generation %d: a poll stored twice or out of order", v.Seq, g, last)
		}
		last = g
		want := wrapper.Wrap([]byte(paddedPage(g, pad)), wrapper.Options{URL: pageURL, RSSID: id,
			ContentType: "text/html; charset=utf-8", Now: doc.Timestamp}).Resource
		if got := dynamo.ContentHash(doc); got != v.Hash || got != dynamo.ContentHash(want) {
			t.Fatalf("version %d (generation %d) rebuilds to content %s; stored hash %s, page's %s",
				v.Seq, g, got, v.Hash, dynamo.ContentHash(want))
		}
		if got, exp := doc.XML(), want.XML(); !bytes.Equal(got, exp) {
			t.Fatalf("version %d (generation %d) does not rebuild exactly:\n%s\nwant:\n%s", v.Seq, g, got, exp)
		}
	}
	return len(vs)
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// logRecorder is a slog handler that keeps the messages logged at warning
// level or above, so that a test can see that a failure was reported.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecorder) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn
}

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	l.msgs = append(l.msgs, b.String())
	l.mu.Unlock()
	return nil
}

func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// count is how many kept messages start with prefix.
func (l *logRecorder) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.HasPrefix(m, prefix) {
			n++
		}
	}
	return n
}

// example is one kept message starting with prefix, for failure reports.
func (l *logRecorder) example(prefix string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		if strings.HasPrefix(m, prefix) {
			return m
		}
	}
	return ""
}
