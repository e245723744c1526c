// Package sources registers and changes sources for every entry point: the
// admin API, the web forms, the sources file of `dynamo serve`, OPML
// imports over the API and `dynamo sources import`. Each goes through a
// Service, so that each applies the domain's rules (dynamo.Source's
// Normalize and Validate, with the policy names the wiring passes), the same
// defaults, and the same resolution of kind auto.
package sources

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/discovery"
)

// Resolver is called on every source about to be registered, or changed
// in its URL or kind, before it is stored. It refuses a URL that polling
// would refuse (a private destination: an error wrapping dynamo.ErrInvalid
// with polling's message, Refused), and resolves kind "auto" (docs/DISCOVERY.md "`kind: auto`"):
// an annotated page becomes html, a feed becomes feed, and any other page
// is searched for its feed, which src then polls. It leaves a source of
// another kind as it is. It returns the discovery that chose the feed, so
// that a client can be shown the other candidates, or nil when the URL
// needed none. An error wrapping ErrUnresolvable says nothing to poll was
// found (and what was tried); one wrapping dynamo.ErrInvalid that the URL
// cannot be read.
type Resolver func(ctx context.Context, src *dynamo.Source) (*discovery.Result, error)

// Refused makes a fetcher's refusal of a destination (poller/fetch's
// KindRefused error) a refusal of the registration: its message is
// polling's, unchanged, and it wraps dynamo.ErrInvalid.
func Refused(err error) error { return refusal{err} }

type refusal struct{ err error }

func (r refusal) Error() string   { return r.err.Error() }
func (r refusal) Unwrap() []error { return []error{r.err, dynamo.ErrInvalid} }

// ErrUnresolvable is what a Resolver wraps when a URL is neither an
// annotated page nor a feed and discovery found no feed on it.
var ErrUnresolvable = errors.New("nothing to poll")

// Service registers and changes sources. Only Store is required.
type Service struct {
	Store dynamo.Store
	// Policies are the scheduling policy names a source may follow (the
	// poller's: poller/policy.Names); a source naming another is refused,
	// and with none given any named policy is.
	Policies []string
	// Resolve, when set, resolves kind auto before a source is stored;
	// without it a source of kind auto is stored as auto.
	Resolve Resolver
	// Now stamps new sources' creation; nil means time.Now.
	Now func() time.Time
}

// Check puts src in its normal form and validates it (dynamo.Source's
// Normalize and Validate, with the service's policies).
func (s *Service) Check(src *dynamo.Source) error {
	src.Normalize()
	if err := src.Validate(s.Policies); err != nil {
		return err
	}
	if src.Kind == dynamo.KindSelectors {
		// That the selectors parse is known only to what reads them.
		if _, err := annotate.SourceSelectors(src).Compile(); err != nil {
			return dynamo.Invalidf("%v", err)
		}
	}
	return nil
}

// resolve checks src's URL and resolves kind auto with the configured
// Resolver, if any. Its errors name the URL and what was tried, and are
// passed on as they are.
func (s *Service) resolve(ctx context.Context, src *dynamo.Source) (*discovery.Result, error) {
	if s.Resolve == nil {
		return nil, nil
	}
	return s.Resolve(ctx, src)
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// Create checks src, resolves kind auto and registers it, stamped with the
// time of its creation. It returns the discovery that chose its feed, if
// one did. A source of the same id is dynamo.ErrConflict.
func (s *Service) Create(ctx context.Context, src *dynamo.Source) (*discovery.Result, error) {
	if err := s.Check(src); err != nil {
		return nil, err
	}
	found, err := s.resolve(ctx, src)
	if err != nil {
		return nil, err
	}
	src.CreatedAt = s.now()
	if err := s.Store.CreateSource(ctx, src); err != nil {
		if errors.Is(err, dynamo.ErrConflict) {
			return nil, fmt.Errorf("a source with id %q exists: %w", src.ID, dynamo.ErrConflict)
		}
		return nil, err
	}
	return found, nil
}

// Change checks src, the new configuration of the source before was,
// resolves it again when its URL or kind changed, and stores it. The id
// cannot change. A removed or unknown source is dynamo.ErrNotFound.
func (s *Service) Change(ctx context.Context, src *dynamo.Source, before *dynamo.Source) error {
	if src.ID != before.ID {
		return dynamo.Invalidf("id cannot be changed (from %q to %q): create a new source instead", before.ID, src.ID)
	}
	if err := s.Check(src); err != nil {
		return err
	}
	if src.URL != before.URL || src.Kind != before.Kind {
		if _, err := s.resolve(ctx, src); err != nil {
			return err
		}
	}
	return s.Store.UpdateSource(ctx, src)
}

// Apply registers src, or changes the source of its id to src's
// configuration (keeping its archive and polling state), after checking
// it and resolving kind auto: what a sources file does at start.
//
// An entry of kind auto whose source is already stored with the same URL
// keeps the kind it was resolved to rather than being fetched again: the
// file is applied at every start, and a site that is down then (or a file
// of many such entries) must not keep serve from starting. An entry whose
// URL discovery replaced by its feed's cannot be matched so, and is
// resolved again.
func (s *Service) Apply(ctx context.Context, src *dynamo.Source) error {
	if err := s.Check(src); err != nil {
		return err
	}
	if src.Kind == dynamo.KindAuto {
		stored, err := s.Store.Source(ctx, src.ID)
		switch {
		case err == nil && stored.URL == src.URL && stored.Kind != dynamo.KindAuto:
			src.Kind = stored.Kind
		case err != nil && !errors.Is(err, dynamo.ErrNotFound):
			return fmt.Errorf("source %s: %w", src.ID, err)
		}
	}
	if _, err := s.resolve(ctx, src); err != nil {
		return err
	}
	if src.CreatedAt.IsZero() {
		src.CreatedAt = s.now()
	}
	return Upsert(ctx, s.Store, src)
}

// Upsert registers src, or changes the source of its id to src's
// configuration, keeping its archive and polling state. It checks
// nothing: Apply does, for sources from outside; the demo's built-in
// sources, polled faster than Validate allows, are stored with it directly.
func Upsert(ctx context.Context, store dynamo.Store, src *dynamo.Source) error {
	err := store.CreateSource(ctx, src)
	if !errors.Is(err, dynamo.ErrConflict) {
		return err
	}
	return store.UpdateSource(ctx, src)
}
