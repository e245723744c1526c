package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/websub"
)

// websubWait bounds each wait for a subscription, a verification or a
// delivery: a bound for what never happens when Dynamo is right, long
// enough that the race detector on two loaded cores cannot reach it (how
// soon deliveries arrive is BenchmarkHubFanOut's to measure).
const websubWait = time.Minute

// wireOrigin serves an RSS feed whose items the test sets.
type wireOrigin struct {
	srv *httptest.Server
	mu  sync.Mutex
	ids []string
}

func newWireOrigin(t *testing.T, ids ...string) *wireOrigin {
	o := &wireOrigin{ids: ids}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		defer o.mu.Unlock()
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Wire</title><link>http://wire.example/</link><description>d</description>`)
		for _, id := range o.ids {
			fmt.Fprintf(w, "<item><title>Story %s</title><link>http://wire.example/%s</link><guid>%s</guid><description>Story %s told at length.</description></item>", id, id, id, id)
		}
		fmt.Fprint(w, "</channel></rss>")
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *wireOrigin) set(ids ...string) {
	o.mu.Lock()
	o.ids = ids
	o.mu.Unlock()
}

// callbackPeer is a WebSub subscriber's callback: it echoes challenges and
// records deliveries.
type callbackPeer struct {
	srv          *httptest.Server
	verification chan url.Values
	deliveries   chan callbackDelivery
}

type callbackDelivery struct {
	body              []byte
	contentType, link string
	signature         string
}

func newCallbackPeer(t *testing.T) *callbackPeer {
	c := &callbackPeer{verification: make(chan url.Values, 8), deliveries: make(chan callbackDelivery, 8)}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			c.verification <- r.URL.Query()
			io.WriteString(w, r.URL.Query().Get("hub.challenge"))
			return
		}
		body, _ := io.ReadAll(r.Body)
		c.deliveries <- callbackDelivery{body: body, contentType: r.Header.Get("Content-Type"), link: r.Header.Get("Link"), signature: r.Header.Get(websub.SignatureHeader)}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// freeAddr is a loopback address nobody listens on, so that the public URL
// is known before serve starts.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// admin sends an authorized admin request.
func admin(t *testing.T, method, url, token, body string) string {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s %s", method, url, resp.Status, b)
	}
	return string(b)
}

// With a public URL, every feed advertises Dynamo's hub and its self URL
// in the document and the Link header; a subscriber that subscribes to one
// is verified, and when a poll stores a new version it receives the new
// feed, signed with its secret.
func TestServeWebSubHubDeliversNewVersions(t *testing.T) {
	const token = "a-token-long-enough-for-anyone"
	t.Setenv("DYNAMO_ADMIN_TOKEN", token)
	addr := freeAddr(t)
	base := "http://" + addr
	startServe(t, serveConfig{addr: addr, publicURL: base, allowPrivate: true, hostGap: -1, db: sqlitetest.Path(t, t.TempDir(), "dynamo.db")})
	origin := newWireOrigin(t, "a", "b")
	admin(t, http.MethodPost, base+"/api/sources", token, fmt.Sprintf(`{"id":"wire","url":%q,"kind":"feed"}`, origin.srv.URL))
	admin(t, http.MethodPost, base+"/api/sources/wire/poll", token, "")

	hub := base + websub.HubPath
	for _, path := range []string{"/resources/wire?type=rss1", "/resources/wire?type=rss2", "/resources/wire?type=atom",
		"/resources/wire?type=json", "/resources/wire?max=10&type=atom", "/resources?type=atom", "/aggregate?max=5"} {
		resp, body := get(t, base+path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		header := websub.Discover(resp.Header.Values("Link"), nil, "", base)
		inDoc := websub.Discover(nil, []byte(body), resp.Header.Get("Content-Type"), base)
		if header.Hub != hub || header.Self == "" || inDoc != header {
			t.Errorf("%s: Link header finds %+v, the document %+v; want hub %s in both, with the same self", path, header, inDoc, hub)
		}
	}
	resp, _ := get(t, base+"/resources/wire?type=atom")
	topic := websub.Discover(resp.Header.Values("Link"), nil, "", base).Self

	peer := newCallbackPeer(t)
	form := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {peer.srv.URL + "/cb"}, "hub.secret": {"peer-secret"}}
	sub, err := http.PostForm(hub, form)
	if err != nil {
		t.Fatal(err)
	}
	sub.Body.Close()
	if sub.StatusCode != http.StatusAccepted {
		t.Fatalf("subscribe: %s", sub.Status)
	}
	select {
	case q := <-peer.verification:
		if q.Get("hub.topic") != topic || q.Get("hub.lease_seconds") != "864000" {
			t.Errorf("verification %v: want topic %s and the default lease of 10 days", q, topic)
		}
	case <-time.After(websubWait):
		t.Fatal("no verification of intent")
	}
	// Wait until the subscription is stored: a version stored before
	// would be what the subscriber subscribed to.
	deadline := time.Now().Add(websubWait)
	for !strings.Contains(admin(t, http.MethodGet, base+"/api/websub", token, ""), peer.srv.URL+"/cb") {
		if time.Now().After(deadline) {
			t.Fatal("the subscription is not listed")
		}
		time.Sleep(20 * time.Millisecond)
	}

	origin.set("c", "a", "b")
	stored := time.Now()
	admin(t, http.MethodPost, base+"/api/sources/wire/poll", token, "")
	select {
	case d := <-peer.deliveries:
		// How soon is measured by BenchmarkHubFanOut, not asserted here.
		t.Logf("delivered %v after the poll began", time.Since(stored))
		if err := websub.Verify("peer-secret", d.signature, d.body); err != nil {
			t.Errorf("signature: %v", err)
		}
		if !bytes.Contains(d.body, []byte("Version 2 of Wire: 3 items (1 new")) || !strings.HasPrefix(d.contentType, "application/atom+xml") {
			t.Errorf("delivered %s: %s", d.contentType, d.body)
		}
		if l := websub.Discover([]string{d.link}, nil, "", ""); l.Hub != hub || l.Self != topic {
			t.Errorf("delivery Link %q", d.link)
		}
	case <-time.After(websubWait):
		t.Fatal("no delivery of the new version")
	}
}

// Dynamo subscribes to Dynamo: B's source is A's feed, which advertises
// A's hub. B's poll discovers the hub and subscribes, A verifies B's
// callback, and when A stores a new version B receives it as a push and
// stores it through its poll path; B's source shows the subscription, in
// the API and on its page; deleting B's source unsubscribes it from A.
func TestServeWebSubDynamoToDynamo(t *testing.T) {
	const token = "a-token-long-enough-for-anyone"
	t.Setenv("DYNAMO_ADMIN_TOKEN", token)
	addrA, addrB := freeAddr(t), freeAddr(t)
	a, b := "http://"+addrA, "http://"+addrB
	startServe(t, serveConfig{addr: addrA, publicURL: a, allowPrivate: true, hostGap: -1, db: sqlitetest.Path(t, t.TempDir(), "a.db")})
	startServe(t, serveConfig{addr: addrB, publicURL: b, allowPrivate: true, hostGap: -1, db: sqlitetest.Path(t, t.TempDir(), "b.db")})
	origin := newWireOrigin(t, "a", "b")
	admin(t, http.MethodPost, a+"/api/sources", token, fmt.Sprintf(`{"id":"wire","url":%q,"kind":"feed"}`, origin.srv.URL))
	admin(t, http.MethodPost, a+"/api/sources/wire/poll", token, "")
	topic := a + "/resources/wire?max=50&type=atom"
	admin(t, http.MethodPost, b+"/api/sources", token, fmt.Sprintf(`{"id":"mirror","url":%q,"kind":"feed"}`, topic))
	admin(t, http.MethodPost, b+"/api/sources/mirror/poll", token, "")

	var detail struct {
		Summary struct{ Versions int }
		State   struct{ LastPoll time.Time } `json:"state"`
		WebSub  *struct {
			State, Hub, Topic string
			LeaseEnds         time.Time `json:"lease_ends"`
			Pushes            int
		} `json:"websub"`
	}
	deadline := time.Now().Add(websubWait)
	for {
		getJSON(t, b+"/api/sources/mirror", &detail)
		if detail.WebSub != nil && detail.WebSub.State == "active" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B's subscription: %+v", detail.WebSub)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if detail.WebSub.Hub != a+websub.HubPath || detail.WebSub.Topic != topic || time.Until(detail.WebSub.LeaseEnds) < 9*24*time.Hour {
		t.Errorf("B's subscription %+v: want A's hub, the topic %s and a lease of 10 days", detail.WebSub, topic)
	}
	if detail.Summary.Versions != 1 {
		t.Fatalf("B has %d versions before the push, want 1", detail.Summary.Versions)
	}
	lastPoll := detail.State.LastPoll

	// B stores a push, then counts it and its metric, then answers A: the
	// test reads B once A has B's answer (the delivery counted), not as
	// soon as B has the version, which came before the count.
	var hub struct {
		Subscribers []struct{ Deliveries int }
	}
	origin.set("c", "a", "b")
	admin(t, http.MethodPost, a+"/api/sources/wire/poll", token, "")
	for {
		if err := json.Unmarshal([]byte(admin(t, http.MethodGet, a+"/api/websub", token, "")), &hub); err != nil {
			t.Fatal(err)
		}
		if len(hub.Subscribers) == 1 && hub.Subscribers[0].Deliveries > 0 {
			break
		}
		if time.Now().After(deadline.Add(websubWait)) {
			t.Fatalf("A did not deliver the new version to B: %+v", hub)
		}
		time.Sleep(50 * time.Millisecond)
	}
	getJSON(t, b+"/api/sources/mirror", &detail)
	if detail.Summary.Versions != 2 {
		t.Fatalf("B has %d versions after the push, want 2", detail.Summary.Versions)
	}
	if hub.Subscribers[0].Deliveries != 1 || detail.WebSub.Pushes != 1 || !detail.State.LastPoll.Equal(lastPoll) {
		t.Errorf("after the push: %d deliveries, %d pushes, last poll %v (was %v): want 1 delivery, 1 push and no poll", hub.Subscribers[0].Deliveries, detail.WebSub.Pushes, detail.State.LastPoll, lastPoll)
	}
	_, items := get(t, b+"/resources/mirror?max=10&type=json")
	if !strings.Contains(items, "Story c") {
		t.Errorf("B's archive lacks the pushed story:\n%s", items)
	}
	_, page := get(t, b+"/ui/sources/mirror")
	if !strings.Contains(page, `id="websub"`) || !strings.Contains(page, "active with hub") || !strings.Contains(page, "1 in all") {
		t.Errorf("B's source page does not show the subscription")
	}
	_, metrics := get(t, b+"/metrics")
	if !strings.Contains(metrics, `dynamo_websub_pushes_total{outcome="stored"} 1`) {
		t.Errorf("B's metrics lack the push")
	}

	admin(t, http.MethodDelete, b+"/api/sources/mirror", token, "")
	subscribers := func() int {
		var st struct{ Subscribers []any }
		if err := json.Unmarshal([]byte(admin(t, http.MethodGet, a+"/api/websub", token, "")), &st); err != nil {
			t.Fatal(err)
		}
		return len(st.Subscribers)
	}
	if subscribers() != 1 {
		t.Fatal("A does not list B")
	}
	for subscribers() != 0 {
		if time.Now().After(deadline.Add(websubWait)) {
			t.Fatalf("A still lists B: %s", admin(t, http.MethodGet, a+"/api/websub", token, ""))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Several processes over one PostgreSQL store: two API processes and a
// process that polls (role all) behind one public URL (each serves every
// URL; the test uses their own addresses). Subscribers subscribe through
// either API process; each version the polling process stores is
// delivered, by one of the three hubs, exactly once to each subscriber.
func TestServeWebSubSeveralProcesses(t *testing.T) {
	const token = "a-token-long-enough-for-anyone"
	t.Setenv("DYNAMO_ADMIN_TOKEN", token)
	dsn := pgtest.DSN(t)
	addr1, addr2, addr3 := freeAddr(t), freeAddr(t), freeAddr(t)
	public := "http://" + addr1
	cfg := func(addr, role string) serveConfig {
		return serveConfig{addr: addr, role: role, publicURL: public, allowPrivate: true, hostGap: -1, db: dsn}
	}
	first := startServe(t, cfg(addr1, "api"))
	second := startServe(t, cfg(addr2, "api"))
	poller := startServe(t, cfg(addr3, "all"))
	origin := newWireOrigin(t, "a")
	admin(t, http.MethodPost, second+"/api/sources", token, fmt.Sprintf(`{"id":"wire","url":%q,"kind":"feed","policy":"flat","interval":"24h"}`, origin.srv.URL))
	admin(t, http.MethodPost, poller+"/api/sources/wire/poll", token, "")
	topic := public + "/resources/wire?max=50&type=atom"
	peers := []*callbackPeer{newCallbackPeer(t), newCallbackPeer(t)}
	for i, peer := range peers {
		hub := []string{first, second}[i] + websub.HubPath
		resp, err := http.PostForm(hub, url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {peer.srv.URL + "/cb"}, "hub.secret": {"s"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("subscribe through %s: %s", hub, resp.Status)
		}
		select {
		case <-peer.verification:
		case <-time.After(websubWait):
			t.Fatal("no verification")
		}
	}
	deadline := time.Now().Add(websubWait)
	for {
		var st struct{ Subscribers []struct{ Callback string } }
		if err := json.Unmarshal([]byte(admin(t, http.MethodGet, first+"/api/websub", token, "")), &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Subscribers) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("subscribers listed: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for round, ids := range [][]string{{"b", "a"}, {"c", "b", "a"}} {
		origin.set(ids...)
		admin(t, http.MethodPost, poller+"/api/sources/wire/poll", token, "")
		for _, peer := range peers {
			select {
			case d := <-peer.deliveries:
				if err := websub.Verify("s", d.signature, d.body); err != nil {
					t.Errorf("round %d: %v", round, err)
				}
				if want := "Story " + ids[0]; !strings.Contains(string(d.body), want) {
					t.Errorf("round %d: the delivery lacks %q", round, want)
				}
			case <-time.After(websubWait):
				t.Fatalf("round %d: no delivery", round)
			}
		}
		for _, peer := range peers {
			select {
			case d := <-peer.deliveries:
				t.Fatalf("round %d: a second delivery: %.80s", round, d.body)
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
}
