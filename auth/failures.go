package auth

import (
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Failures limits how often one client may present a wrong credential (a
// bearer token, the login form's token): each client has a bucket of
// Burst guesses that refills at one per Every, and a client whose bucket is
// empty is refused before its credential is even compared. IPv6 clients
// are counted by /64, the block one subscriber usually holds, so that
// rotating addresses within it gains nothing. The table of clients is
// bounded: when it is full, buckets that have refilled are forgotten, and
// if none has, the new client shares the refusal of the oldest.
type Failures struct {
	Burst int
	Every time.Duration
	// Max bounds the clients remembered.
	Max int
	Now func() time.Time

	mu      sync.Mutex
	clients map[netip.Prefix]*bucket
}

type bucket struct {
	used float64 // guesses spent, draining at one per Every
	at   time.Time
}

// NewFailures allows 10 wrong credentials at once, then one every 6
// seconds, per client, for up to 100,000 clients.
func NewFailures() *Failures {
	return &Failures{Burst: 10, Every: 6 * time.Second, Max: 100_000, Now: time.Now}
}

func clientKey(a netip.Addr) netip.Prefix {
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.Prefix(bits)
	return p
}

// wait is how long the client must wait before its next guess is looked
// at; 0 when it may guess now.
func (f *Failures) wait(client netip.Addr) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.clients[clientKey(client)]
	if b == nil {
		return 0
	}
	f.drain(b)
	if over := b.used - float64(f.Burst-1); over > 0 {
		return time.Duration(over * float64(f.Every))
	}
	return 0
}

// fail spends one of the client's guesses.
func (f *Failures) fail(client netip.Addr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := clientKey(client)
	b := f.clients[key]
	if b == nil {
		if f.clients == nil {
			f.clients = map[netip.Prefix]*bucket{}
		}
		if len(f.clients) >= f.Max {
			f.forget()
		}
		b = &bucket{at: f.Now()}
		f.clients[key] = b
	}
	f.drain(b)
	b.used++
}

func (f *Failures) drain(b *bucket) {
	now := f.Now()
	b.used = max(0, b.used-float64(now.Sub(b.at))/float64(f.Every))
	b.at = now
}

// forget drops the buckets that have drained, or, when none has, the
// oldest one, so the table never outgrows Max.
func (f *Failures) forget() {
	var oldest netip.Prefix
	var at time.Time
	for k, b := range f.clients {
		f.drain(b)
		if b.used == 0 {
			delete(f.clients, k)
			continue
		}
		if at.IsZero() || b.at.Before(at) {
			oldest, at = k, b.at
		}
	}
	if len(f.clients) >= f.Max {
		delete(f.clients, oldest)
	}
}

// Check is Authorized, with the limit on guesses applied to a bearer
// token: a client that presented too many wrong ones must wait (the
// duration is then positive) before its token is compared again, and a
// wrong one is counted and logged.
func (a Access) Check(r *http.Request, proofs ...func(*http.Request) bool) (bool, time.Duration) {
	_, presented := bearer(r)
	presented = presented && a.Token != ""
	if presented {
		if wait := a.Throttled(r); wait > 0 {
			return false, wait
		}
	}
	if a.Authorized(r, proofs...) {
		return true, 0
	}
	if presented {
		a.Failed(r, "bearer token")
	}
	return false, 0
}

// Throttled reports how long r's client must wait before a credential it
// presents is compared: 0 when it may be now. Call it before checking a
// credential, and Failed after a wrong one.
func (a Access) Throttled(r *http.Request) time.Duration {
	if a.Failures == nil {
		return 0
	}
	return a.Failures.wait(a.clientOrPeer(r))
}

// Failed records and logs a wrong credential (what: "bearer token",
// "login") presented by r's client.
func (a Access) Failed(r *http.Request, what string) {
	client := a.clientOrPeer(r)
	if a.Failures != nil {
		a.Failures.fail(client)
	}
	if a.Log != nil {
		a.Log.Warn("auth: wrong admin token", "credential", what, "client", client.String(), "method", r.Method, "path", r.URL.Path)
	}
}

// RetryAfter sets the Retry-After header of an answer to a client that
// must wait, in whole seconds rounded up.
func RetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
}

// TooManyGuesses is the message of the answer to a throttled client.
const TooManyGuesses = "too many wrong admin tokens from this client: wait before trying again"

// clientOrPeer is the client as far as it can be told: Client's answer,
// or the connection's peer when a proxy that is not trusted stands between.
func (a Access) clientOrPeer(r *http.Request) netip.Addr {
	if c, ok := a.Client(r); ok {
		return c
	}
	peer, _ := addrOf(r.RemoteAddr)
	return peer
}
