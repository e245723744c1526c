package sanitize

import (
	"net/url"
	"strings"
)

// resolver is Resolve against one base at a time, with a fast path for the
// references descriptions are mostly made of: a path of letters, digits,
// '-', '.', '_', '~' and '/' (no "." or ".." segment, not beginning with
// "//"), and perhaps a query of those and '=' and '&'. Resolve gives such a
// reference after the base's origin (when it begins with '/') or after the
// base's directory, each as Resolve writes it; resolver asks Resolve for
// those two once per base and appends the reference. FuzzResolver holds it
// to Resolve.
type resolver struct {
	base        url.URL // the base origin and dir are for
	set         bool
	origin, dir string // "" when the base has no fast path
}

// resolve is Resolve(base, ref).
func (r *resolver) resolve(base *url.URL, ref string) string {
	if base == nil {
		return Resolve(base, ref)
	}
	if !r.set || r.base != *base {
		r.reset(base)
	}
	if r.origin == "" || !plainRef(ref) {
		return Resolve(base, ref)
	}
	if ref[0] == '/' {
		return r.origin + ref
	}
	return r.dir + ref
}

// reset makes r resolve against base: an http or https URL with a host
// has a fast path.
func (r *resolver) reset(base *url.URL) {
	r.base, r.set, r.origin, r.dir = *base, true, "", ""
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" || base.Opaque != "" {
		return
	}
	origin, ok := strings.CutSuffix(Resolve(base, "/"), "/")
	dir, ok2 := strings.CutSuffix(Resolve(base, "x"), "x")
	if ok && ok2 && origin != "" {
		r.origin, r.dir = origin, dir
	}
}

// plainRef reports whether ref is of the form resolver appends as it is.
func plainRef(ref string) bool {
	path, query, _ := strings.Cut(ref, "?")
	if path == "" || strings.HasPrefix(path, "//") {
		return false
	}
	for i := 0; i < len(path); i++ {
		if c := path[i]; !isASCIIAlnum(c) && c != '-' && c != '.' && c != '_' && c != '~' && c != '/' {
			return false
		}
	}
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	for i := 0; i < len(query); i++ {
		if c := query[i]; !isASCIIAlnum(c) && c != '-' && c != '.' && c != '_' && c != '~' && c != '/' && c != '=' && c != '&' {
			return false
		}
	}
	return true
}
