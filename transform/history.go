package transform

// nsHistory is the namespace of RFC 5005's fh:archive.
const nsHistory = "http://purl.org/syndication/history/1.0"

// History describes a document of an archived feed (RFC 5005 §4): the
// subscription document or one of its archive documents. Every URL is
// absolute; an empty one is left out.
type History struct {
	// PrevArchive is the next older archive document. Atom, RSS 2.0 and
	// RSS 1.0 link it as rel="prev-archive" and, for readers that page
	// (RFC 5005 §3) rather than archive, rel="next"; JSON Feed as next_url.
	PrevArchive string
	// Current is the subscription document, linked rel="current" from an
	// archive document.
	Current string
	// Archive marks an archive document, which never changes: fh:archive
	// in the XML formats.
	Archive bool
}

// WithHistory tells Render that the document belongs to an archived feed
// (docs/API.md "Archived feeds").
func WithHistory(h History) Option {
	return func(o *options) { o.history = h }
}

// clean returns h with its URLs absolute or left out.
func (h History) clean() History {
	h.PrevArchive, h.Current = absoluteURL(h.PrevArchive, nil), absoluteURL(h.Current, nil)
	return h
}

// needsAtom reports whether the history links need the Atom namespace in
// RSS.
func (h History) needsAtom() bool { return h.PrevArchive != "" || h.Current != "" }

// writeHistory writes the links and fh:archive, as elements of Atom's own
// namespace (atom) or with the atom: prefix (RSS).
func (x *xmlWriter) writeHistory(indent string, h History, atom bool) {
	link := func(rel, href string) {
		if href == "" {
			return
		}
		if atom {
			x.atomLink(indent, rel, "", href)
		} else {
			x.atomLinkNS(indent, rel, href)
		}
	}
	link("current", h.Current)
	link("prev-archive", h.PrevArchive)
	link("next", h.PrevArchive)
	if h.Archive {
		x.raw(indent + "<fh:archive/>\n")
	}
}
