package websub_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/websub"
)

// These tests run Dynamo's two roles against independent WebSub
// implementations from npm, pinned in testdata/peers/package-lock.json and
// run by Node on loopback: pubsubhubbub 1.0.2 as the subscriber of Dynamo's
// hub, and @dwk/websub 1.0.0-beta.1 as the hub of Dynamo's subscriber. The
// packages are installed once (npm ci, integrity-checked against the lock
// file) into the user's cache directory; that install is the only thing
// that leaves the machine. Node and npm must be installed (scripts/test.sh
// installs them).

// peersOnce installs the npm packages once per test binary.
var peersOnce struct {
	sync.Once
	dir string
	err error
}

// npmPeers returns a directory whose node_modules holds the pinned peers,
// installing them on first use.
func npmPeers(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run the independent WebSub peers (apt-get install nodejs npm; scripts/test.sh installs them): %v", tool, err)
		}
	}
	peersOnce.Do(func() { peersOnce.dir, peersOnce.err = installPeers() })
	if peersOnce.err != nil {
		t.Fatal(peersOnce.err)
	}
	return peersOnce.dir
}

// installPeers runs npm ci for testdata/peers into a cache directory named
// after the lock file's hash, unless an earlier run did; an install is made
// aside and renamed into place, so concurrent test runs never see half of
// one.
func installPeers() (string, error) {
	lock, err := os.ReadFile(filepath.Join("testdata", "peers", "package-lock.json"))
	if err != nil {
		return "", err
	}
	manifest, err := os.ReadFile(filepath.Join("testdata", "peers", "package.json"))
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(append(append([]byte{}, manifest...), lock...))
	dir := filepath.Join(cache, "dynamo", "websub-peers", hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	for name, data := range map[string][]byte{"package.json": manifest, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci for the WebSub peers: %v\n%s", err, out)
	}
	if err := os.Rename(work, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); statErr == nil {
			return dir, nil // another run installed it meanwhile
		}
		return "", err
	}
	return dir, nil
}

// peer is one Node process running a script of testdata/peers; it prints
// one JSON object a line.
type peer struct {
	t      *testing.T
	lines  chan map[string]any
	stderr *logBuffer
	seen   []string
}

// startPeer runs script with args, its modules resolved from the installed
// peers, and ends it when the test ends.
func startPeer(t *testing.T, script string, args ...string) *peer {
	t.Helper()
	installed := npmPeers(t)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(installed, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "peers", script))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, script), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Dir = dir
	p := &peer{t: t, lines: make(chan map[string]any, 256), stderr: &logBuffer{}}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"event": "unparsed", "line": sc.Text()}
			}
			p.lines <- m
		}
	}()
	t.Cleanup(func() {
		stdin.Close() // the scripts end when stdin does
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return p
}

// next waits for the peer's next line with event, skipping others.
func (p *peer) next(event string) map[string]any {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the peer ended before %q; it printed %v; stderr:\n%s", event, p.seen, p.stderr.String())
			}
			b, _ := json.Marshal(m)
			p.seen = append(p.seen, string(b))
			if m["event"] == event {
				return m
			}
		case <-deadline:
			p.t.Fatalf("no %q from the peer within 30 s; it printed %v; stderr:\n%s", event, p.seen, p.stderr.String())
			return nil
		}
	}
}

// field is a string field of a peer's line, or of its "fields" object.
func field(m map[string]any, name string) any {
	if f, ok := m["fields"].(map[string]any); ok {
		return f[name]
	}
	return m[name]
}

// npm's pubsubhubbub subscribes to a Dynamo feed through Dynamo's hub,
// answers the verification of intent, and receives the next version with a
// sha256 signature that the library itself checks: it emits a feed only for
// a signature that matches (a forged one is acknowledged and dropped, as it
// does on purpose).
func TestIndependentSubscriberOfDynamosHub(t *testing.T) {
	st := openStore(t)
	ensureSource(t, st, "news")
	h := newHubSide(t, st)
	const secret = "independent-secret"
	sub := startPeer(t, "subscriber.cjs", h.hub.URL(), h.topic, secret)
	sub.next("listen")
	sub.next("requested")
	if ev := sub.next("subscribe"); field(ev, "topic") != h.topic {
		t.Errorf("the subscriber answered a verification for %v, want %s", field(ev, "topic"), h.topic)
	}
	eventually(t, "subscription stored", func() bool { return len(h.subscriptions(t)) == 1 })
	stored := h.subscriptions(t)[0]
	// What the library registers as hub.secret (see subscriber.cjs).
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(h.topic))
	if registered := hex.EncodeToString(mac.Sum(nil)); stored.Secret != registered || stored.LeaseSeconds != 3600 {
		t.Errorf("stored secret %q lease %d, want the library's %q and the 3600 s it asked", stored.Secret, stored.LeaseSeconds, registered)
	}

	// A delivery signed with another key is not a feed to the library.
	forged := []byte("<feed>forged</feed>")
	req, _ := http.NewRequest(http.MethodPost, stored.Callback, strings.NewReader(string(forged)))
	req.Header.Set("Content-Type", "application/atom+xml")
	req.Header.Set("Link", websub.LinkHeader(h.hub.URL(), h.topic))
	req.Header.Set(websub.SignatureHeader, websub.Sign("not-the-secret", forged))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	start := time.Now()
	h.change(t, "<feed>v2</feed>")
	ev := sub.next("feed")
	t.Logf("the independent subscriber had the new version %v after it was announced", time.Since(start))
	if body := field(ev, "body"); body != "<feed>v2</feed>" {
		t.Fatalf("the first feed the library accepted is %q, want the new version (a forged delivery must not pass)", body)
	}
	if sig, _ := field(ev, "signature").(string); !strings.HasPrefix(sig, "sha256=") {
		t.Errorf("signature %q, want sha256", sig)
	}
	if field(ev, "topic") != h.topic || field(ev, "hub") != h.hub.URL() || field(ev, "contentType") != "application/atom+xml" {
		t.Errorf("the library read topic %v, hub %v, type %v", field(ev, "topic"), field(ev, "hub"), field(ev, "contentType"))
	}
	eventually(t, "delivery recorded", func() bool {
		s := h.subscriptions(t)[0]
		return s.Deliveries == 1 && s.PendingETag == "" && s.LastError == ""
	})
}

// Dynamo's subscriber against npm's @dwk/websub hub: a source whose feed
// advertises the hub is subscribed, the hub's verification of intent is
// answered, a publish makes the hub fetch the feed and deliver it signed,
// which stores a version through the poll path; pausing the source
// unsubscribes it, verified by the hub.
func TestDynamoSubscriberOfIndependentHub(t *testing.T) {
	origin := newFeedOrigin(t, "", "a", "b")
	d := newDynamoSide(t)
	hub := startPeer(t, "hub.mjs", origin.url(), strings.TrimPrefix(d.srv.URL, "http://"), strings.TrimPrefix(origin.srv.URL, "http://"))
	hubURL, _ := field(hub.next("listen"), "url").(string)
	origin.set(hubURL, "a", "b")
	d.addSource(t, "wire", origin.url())
	d.pollNow(t, "wire")

	if ev := hub.next("websub.verify.completed"); field(ev, "mode") != "subscribe" || field(ev, "confirmed") != true {
		t.Fatalf("the hub's verification: %v", ev)
	}
	hub.next("websub.subscription.activated")
	var sub *dynamo.Subscription
	eventually(t, "subscription active", func() bool {
		sub = d.subscription(t, "wire")
		return sub != nil && sub.State == dynamo.SubActive
	})
	if sub.Hub != hubURL || sub.Topic != origin.url() || sub.LeaseSeconds != 864000 {
		t.Errorf("subscription %+v: want hub %s, topic %s, the hub's longest lease 864000 s", sub, hubURL, origin.url())
	}

	origin.set(hubURL, "c", "a", "b")
	resp, err := http.PostForm(hubURL, url.Values{"hub.mode": {"publish"}, "hub.url": {origin.url()}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("publish answered %d", resp.StatusCode)
	}
	if ev := hub.next("websub.delivery.completed"); field(ev, "delivered") != true || field(ev, "status") != float64(http.StatusNoContent) {
		t.Fatalf("the hub's delivery: %v", ev)
	}
	if n := versions(t, d.store, "wire"); n != 2 {
		t.Fatalf("%d versions after the hub's push, want 2", n)
	}
	items, err := d.store.Items(context.Background(), dynamo.ItemQuery{SourceID: "wire", Version: 1})
	if err != nil || len(items) != 3 || items[0].Item.Title != "Story c" {
		t.Fatalf("the pushed version's items %+v, %v", items, err)
	}
	if d.counts.get("push stored") != 1 || d.counts.get("push rejected_signature") != 0 {
		t.Errorf("push counts %v", d.counts.m)
	}

	src, err := d.store.Source(context.Background(), "wire")
	if err != nil {
		t.Fatal(err)
	}
	src.Paused = true
	if err := d.store.UpdateSource(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if ev := hub.next("websub.verify.completed"); field(ev, "mode") != "unsubscribe" || field(ev, "confirmed") != true {
		t.Fatalf("the hub's verification of the unsubscription: %v", ev)
	}
	hub.next("websub.subscription.removed")
	eventually(t, "subscription removed", func() bool {
		_, err := d.store.Subscription(context.Background(), "wire")
		return errors.Is(err, dynamo.ErrNotFound)
	})
}
