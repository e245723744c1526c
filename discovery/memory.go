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

// DomainMemory remembers, per key, the pattern that found a feed, so that
// the next URL of the same domain or platform tries it first. A key is a
// registrable domain ("example.com") or a platform key (memoryKeys:
// "wordpress@example.com", "@hatenablog.com"). A pattern is
// "link-alternate", "anchor", or "path:" followed by a path template and
// the installation root it was found under, if not the site's:
// "path:/feed/", "path:/feed/{first}", "path:/feed/ root=/blog/".
type DomainMemory interface {
	// Pattern returns the pattern remembered under key; ok is false when
	// there is none.
	Pattern(ctx context.Context, key string) (pattern string, ok bool, err error)
	// Remember keeps pattern under key, replacing any earlier one.
	Remember(ctx context.Context, key, pattern string) error
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

// memoryKeys returns the keys a page's pattern is recalled from and
// remembered under, the most specific first. The platform key names the
// platform the page was recognized as and the domain its sites share: the
// registrable domain, or, for a host under a private public suffix
// (tom.hatenablog.com, alice.blogspot.com, bob.github.io), that suffix,
// whose sites are each their own registrable domain but run on one
// platform. Hugo and Jekyll sites on github.io keep apart
// ("hugo@github.io", "jekyll@github.io"); sites under a private suffix
// whose platform is not recognized share "@hatenablog.com". The
// registrable domain comes last, for pages whose platform is unknown.
func memoryKeys(host string, plat *platform) []string {
	domain := RegistrableDomain(host)
	shared, private := domain, false
	if net.ParseIP(strings.TrimSuffix(host, ".")) == nil {
		suffix, icann := publicsuffix.PublicSuffix(strings.TrimSuffix(strings.ToLower(host), "."))
		if !icann && strings.Contains(suffix, ".") && suffix != domain {
			shared, private = suffix, true
		}
	}
	if plat == nil && !private {
		return []string{domain}
	}
	name := ""
	if plat != nil {
		name = plat.name
	}
	return []string{name + "@" + shared, domain}
}
