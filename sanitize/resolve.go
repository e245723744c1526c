package sanitize

import (
	"net/url"
	"strings"
)

// Resolver is Resolve against one base at a time, with a fast path for the
// references descriptions are mostly made of: a path of letters, digits,
// '-', '.', '_', '~' and '/' (no "." or ".." segment, not beginning with
// "//"), and perhaps a query of those and '=' and '&'. Resolve gives such a
// reference after the base's origin (when it begins with '/') or after the
// base's directory, each as Resolve writes it; Resolver asks Resolve for
// those two once per base and appends the reference. It does so for an
// http or https base whose two are plain URLs (plainURL), and the URLs it
// gives are then plain too: a plain reference's characters are all allowed
// in one, and url.Parse reads its path and query back as they are.
// FuzzResolver holds it to Resolve and to plainURL. The zero Resolver is
// ready; it is not safe for concurrent use.
type Resolver struct {
	base        url.URL // the base origin and dir are for
	set         bool    // base is set
	fast        bool    // the fast path is taken for base
	origin, dir string
}

// Resolve is Resolve(base, ref); plain is true when the fast path resolved
// it, so that it is a plain URL.
func (r *Resolver) Resolve(base *url.URL, ref string) (_ string, plain bool) {
	if v, ok := r.Plain(base, ref); ok {
		return v, true
	}
	return Resolve(base, ref), false
}

// Plain returns Resolve(base, ref), a plain URL, when the fast path
// resolves ref; ok is false, and nothing resolved, otherwise.
func (r *Resolver) Plain(base *url.URL, ref string) (_ string, ok bool) {
	if base == nil {
		return "", false
	}
	if !r.set || r.base != *base {
		r.reset(base)
	}
	if !r.fast || !plainRef(ref) {
		return "", false
	}
	if ref[0] == '/' {
		return r.origin + ref, true
	}
	return r.dir + ref, true
}

// reset makes r resolve against base.
func (r *Resolver) reset(base *url.URL) {
	r.base, r.set, r.fast, r.origin, r.dir = *base, true, false, "", ""
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" || base.Opaque != "" {
		return
	}
	root, dirX := Resolve(base, "/"), Resolve(base, "x")
	origin, ok := strings.CutSuffix(root, "/")
	dir, ok2 := strings.CutSuffix(dirX, "x")
	if ok && ok2 && origin != "" && plainURL(root) && plainURL(dirX) {
		r.fast, r.origin, r.dir = true, origin, dir
	}
}

// plainRef reports whether ref is of the form Resolver appends as it is.
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
