package poller_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller"
)

// logRecorder is a slog.Handler that keeps every record, for tests to read
// what the poller logged.
type logRecorder struct {
	mu      sync.Mutex
	records []logLine
}

type logLine struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecorder) WithGroup(string) slog.Handler            { return h }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	line := logLine{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		line.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, line)
	return nil
}

// take returns the records logged since the last take.
func (h *logRecorder) take() []logLine {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.records
	h.records = nil
	return out
}

// TestPollLogs: every poll at debug with its outcome and duration; a
// stored version at info; a failure streak's start and end once each,
// with the reason, however long the streak.
func TestPollLogs(t *testing.T) {
	st := openStore(t)
	o := newOrigin(t)
	o.set("/p", page{body: annotated("Bridge reopens")})
	addSource(t, st, "town", o.URL+"/p", dynamo.KindHTML)
	rec := &logRecorder{}
	p := newPoller(t, st, func(c *poller.Config) { c.Logger = slog.New(rec) })

	type want struct {
		level slog.Level
		msg   string
		attrs map[string]string
	}
	steps := []struct {
		name   string
		page   page
		status dynamo.PollStatus
		want   []want
	}{
		{"first version", page{body: annotated("Bridge reopens")}, dynamo.StatusChanged, []want{
			{slog.LevelDebug, "poll", map[string]string{"source": "town", "status": "changed", "http_status": "200", "new_items": "1"}},
			{slog.LevelInfo, "stored version", map[string]string{"source": "town", "version": "1", "new_items": "1"}},
		}},
		{"unchanged", page{body: annotated("Bridge reopens")}, dynamo.StatusNotModified, []want{
			{slog.LevelDebug, "poll", map[string]string{"source": "town", "status": "not_modified", "http_status": "304"}},
		}},
		{"starts failing", page{body: "x", status: http.StatusServiceUnavailable}, dynamo.StatusError, []want{
			{slog.LevelDebug, "poll", map[string]string{"source": "town", "status": "error", "http_status": "503"}},
			{slog.LevelWarn, "source failing", map[string]string{"source": "town", "url": o.URL + "/p"}},
		}},
		{"still failing", page{body: "x", status: http.StatusServiceUnavailable}, dynamo.StatusError, []want{
			{slog.LevelDebug, "poll", map[string]string{"source": "town", "status": "error"}},
		}},
		{"failing a third time", page{body: "x", status: http.StatusInternalServerError}, dynamo.StatusError, []want{
			{slog.LevelDebug, "poll", map[string]string{"source": "town", "status": "error", "http_status": "500"}},
		}},
		{"recovers with a new version", page{body: annotated("Market day", "Bridge reopens")}, dynamo.StatusChanged, []want{
			{slog.LevelDebug, "poll", map[string]string{"source": "town", "status": "changed"}},
			{slog.LevelInfo, "stored version", map[string]string{"source": "town", "version": "2", "new_items": "1"}},
			{slog.LevelInfo, "source recovered", map[string]string{"source": "town", "failed_polls": "3"}},
		}},
	}
	for _, step := range steps {
		o.set("/p", step.page)
		if out := pollNow(t, p, "town"); out.Status != step.status {
			t.Fatalf("%s: outcome %+v, want %s", step.name, out, step.status)
		}
		got := rec.take()
		if len(got) != len(step.want) {
			t.Errorf("%s: %d lines logged, want %d: %+v", step.name, len(got), len(step.want), got)
			continue
		}
		for i, w := range step.want {
			g := got[i]
			if g.level != w.level || g.msg != w.msg {
				t.Errorf("%s: line %d is %s %q, want %s %q", step.name, i, g.level, g.msg, w.level, w.msg)
			}
			for k, v := range w.attrs {
				if g.attrs[k] != v {
					t.Errorf("%s: %q has %s=%q, want %q", step.name, g.msg, k, g.attrs[k], v)
				}
			}
			if g.msg == "poll" && g.attrs["duration"] == "" {
				t.Errorf("%s: the poll line has no duration: %v", step.name, g.attrs)
			}
			if g.msg == "source failing" && !strings.Contains(g.attrs["reason"], "503") {
				t.Errorf("%s: the failing line's reason %q does not name the status", step.name, g.attrs["reason"])
			}
			if g.msg == "source recovered" && !strings.Contains(g.attrs["last_reason"], "500") {
				t.Errorf("%s: the recovered line's last reason %q, want the last failure's", step.name, g.attrs["last_reason"])
			}
		}
	}
}
