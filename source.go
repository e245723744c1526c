package dynamo

import (
	"encoding/json"
	"time"
)

// SourceKind says how a source's body is read.
type SourceKind string

// The kinds of source. KindAuto is only a request: registration resolves it
// to KindHTML or KindFeed before the source is stored.
const (
	KindAuto      SourceKind = "auto"      // detect: annotations → html, a feed → feed, else discovery
	KindHTML      SourceKind = "html"      // an annotated HTML page, read by the wrapper
	KindFeed      SourceKind = "feed"      // a native RSS, Atom or JSON feed
	KindSelectors SourceKind = "selectors" // a page read through CSS or XPath selectors (its *_selector fields)
)

// Source is one polled origin and the collection (rssId) its versions form.
//
// Its configuration is every field without the tag dynamo:"kept": what a
// client sets through the admin API, a sources file, an OPML attribute or a
// web form (see ConfigFields), under its JSON name. The kept fields are
// Dynamo's own. Adding a configuration field is adding it here, to
// Normalize and Validate when it has a rule, and to the stores' SQL
// (docs/ARCHITECTURE.md walks through it).
type Source struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Title is the user's name for the source (an imported OPML outline's
	// title): it is written on OPML export, and shown until the feed's own
	// title is known (DisplayTitle). "" for none.
	Title       string     `json:"title,omitempty"`
	Kind        SourceKind `json:"kind"`
	Interval    Duration   `json:"interval"`         // the flat policy's interval and other policies' starting point
	Policy      string     `json:"policy,omitempty"` // "" follows the poller's global policy
	Category    string     `json:"category,omitempty"`
	TitlePrefix string     `json:"title_prefix,omitempty"` // removed from titles before duplicate detection
	Subscribers int        `json:"subscribers"`            // weighs the source in ranking policies
	Timezone    string     `json:"timezone,omitempty"`     // IANA name; dates without a zone are read in it
	Paused      bool       `json:"paused"`
	// IgnoreRobots polls an html or selectors source even where its host's
	// robots.txt disallows it: for a webmaster polling their own page
	// (docs/FETCHING.md). Off by default.
	IgnoreRobots bool `json:"ignore_robots"`

	// A selectors source's selectors (docs/ANNOTATE.md): where its items
	// are, and each item's fields, as CSS selectors or XPath 1.0
	// expressions, as SelectorSyntax says ("css", the default, or
	// "xpath"). Only kind selectors has them.
	SelectorSyntax      string `json:"selector_syntax,omitempty"`
	ItemSelector        string `json:"item_selector,omitempty"`
	TitleSelector       string `json:"title_selector,omitempty"`
	LinkSelector        string `json:"link_selector,omitempty"`
	DescriptionSelector string `json:"description_selector,omitempty"`
	DateSelector        string `json:"date_selector,omitempty"`
	AuthorSelector      string `json:"author_selector,omitempty"`
	ImageSelector       string `json:"image_selector,omitempty"`
	EnclosureSelector   string `json:"enclosure_selector,omitempty"`

	CreatedAt time.Time `json:"created_at,omitzero" dynamo:"kept"`

	State   PollState     `json:"state" dynamo:"kept"`   // kept by the poller
	Summary SourceSummary `json:"summary" dynamo:"kept"` // kept by the store, read-only
}

// DisplayTitle is the name a source is shown under: the channel title of
// its newest version once one is stored, else the user's Title, else its
// id. (A value receiver, so that templates call it on any Source.)
func (s Source) DisplayTitle() string {
	switch {
	case s.Summary.Title != "":
		return s.Summary.Title
	case s.Title != "":
		return s.Title
	}
	return s.ID
}

// PollState is what the poller keeps about a source between polls.
type PollState struct {
	ETag         string     `json:"etag,omitempty"`
	LastModified string     `json:"last_modified,omitempty"`
	BodyHash     string     `json:"body_hash,omitempty"` // digest of the last body, so an unchanged body costs no parse
	LastPoll     time.Time  `json:"last_poll,omitzero"`
	NextPoll     time.Time  `json:"next_poll,omitzero"`
	LastChange   time.Time  `json:"last_change,omitzero"` // when the last version was stored
	LastStatus   PollStatus `json:"last_status,omitempty"`
	Errors       int        `json:"errors"` // consecutive failed polls; drives back-off
	LastError    string     `json:"last_error,omitempty"`
	// Schedule is the scheduling policies' learnt state (rates, τ, λ,
	// capacity, weekday history), opaque to the store.
	Schedule json.RawMessage `json:"schedule,omitempty"`
	// Warnings are the problems the last page read found (annotations,
	// selectors, dates), with their lines, at most MaxPollWarnings; kept
	// until a body is read again. Html and selectors sources only.
	Warnings []Warning `json:"warnings,omitempty"`
}

// SourceSummary counts what the archive holds for a source.
type SourceSummary struct {
	Title         string         `json:"title,omitempty"` // channel title of the newest version
	Versions      int            `json:"versions"`
	Items         int            `json:"items"`
	Duplicates    int            `json:"duplicates"` // items recorded as near-duplicates of another source's
	LastVersionAt time.Time      `json:"last_version_at,omitzero"`
	Polls         map[string]int `json:"polls"` // polls by PollStatus
	LeaseOwner    string         `json:"lease_owner,omitempty"`
	LeaseExpires  time.Time      `json:"lease_expires,omitzero"`
	// PushedUntil is when the lease of the source's active WebSub
	// subscription ends (Subscription.Pushing): until then its hub pushes
	// its updates and polls are for safety only. Zero without an active
	// subscription. It comes with the source, so that a poll needs no
	// read of its own to know it.
	PushedUntil time.Time `json:"pushed_until,omitzero"`
}

// Pushed reports whether the source's hub pushes its updates at now
// (PushedUntil), so that a policy polls it for safety only.
func (s *SourceSummary) Pushed(now time.Time) bool { return now.Before(s.PushedUntil) }

// PollStatus is the outcome of one poll.
type PollStatus string

// The outcomes of a poll.
const (
	StatusChanged     PollStatus = "changed"      // a new version was stored
	StatusUnchanged   PollStatus = "unchanged"    // fetched, same content as the latest version
	StatusNotModified PollStatus = "not_modified" // the origin answered 304
	StatusError       PollStatus = "error"        // nothing usable was fetched
)

// PollOutcome is what "poll now" answers (docs/API.md "Admin API").
type PollOutcome struct {
	Status   PollStatus `json:"status"`
	Version  int        `json:"version,omitempty"` // the stored version's sequence number (1 = the first ever)
	NewItems int        `json:"new_items"`
	Error    string     `json:"error,omitempty"`
}

// PollLogEntry is one poll as recorded for charts and statistics. Stores keep
// a bounded number of them per source.
type PollLogEntry struct {
	SourceID string        `json:"source_id"`
	At       time.Time     `json:"at"`
	Status   PollStatus    `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	NewItems int           `json:"new_items"`
	Error    string        `json:"error,omitempty"`
	// HTTPStatus is the origin's answer (200, 304, 404, …); 0 when none
	// came (a refused connection, a timeout, a refused address).
	HTTPStatus int `json:"http_status,omitempty"`
	// Bytes is the size of the body read, after decompression; 0 for a 304
	// or a failure.
	Bytes int64 `json:"bytes"`
}
