package discovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/dynamo-feeds/dynamo"
)

// DomainMemory remembers, per registrable domain, the pattern that found a
// feed, so that the next URL of the domain tries it first. A pattern is
// "link-alternate", "anchor", or "path:" followed by a path template such
// as "path:/feed/" or "path:/feed/{first}" (see Discoverer).
type DomainMemory interface {
	// Pattern returns the pattern remembered for domain; ok is false when
	// there is none.
	Pattern(ctx context.Context, domain string) (pattern string, ok bool, err error)
	// Remember keeps pattern for domain, replacing any earlier one.
	Remember(ctx context.Context, domain, pattern string) error
}

// SettingMemory keeps domain patterns in a store's settings, so that every
// process sharing the store, and the next start, know them.
type SettingMemory struct {
	Store dynamo.SettingStore
}

// settingPrefix namespaces the settings SettingMemory writes.
const settingPrefix = "discovery.pattern."

// Pattern implements DomainMemory.
func (m SettingMemory) Pattern(ctx context.Context, domain string) (string, bool, error) {
	v, err := m.Store.Setting(ctx, settingPrefix+domain)
	if errors.Is(err, dynamo.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("discovery pattern of %s: %w", domain, err)
	}
	return v, true, nil
}

// Remember implements DomainMemory.
func (m SettingMemory) Remember(ctx context.Context, domain, pattern string) error {
	if err := m.Store.PutSetting(ctx, settingPrefix+domain, pattern); err != nil {
		return fmt.Errorf("remember discovery pattern of %s: %w", domain, err)
	}
	return nil
}

// RegistrableDomain returns the domain under which a host's patterns are
// remembered: its registrable domain (eTLD+1: "example.co.uk" for
// "blog.example.co.uk", "alice.blogspot.com" for itself, since blogspot.com
// is a public suffix), the address itself for an IP address, and the
// lower-cased host for names that have no registrable domain (localhost).
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if net.ParseIP(host) != nil {
		return host
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}
