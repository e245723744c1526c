// Package transform renders an XMLData document (a *dynamo.Resource) as
// RSS 1.0, RSS 2.0, Atom 1.0 or JSON Feed 1.1, or as XMLData itself.
//
// Every resource renders to a document that the format's validators accept,
// whatever it holds: the wrapper's output, a listing or an aggregate built
// by the API, or a page with no title, no links, control characters or
// invalid UTF-8. Required elements are always present, invalid characters
// are dropped, links are made absolute URIs or left out, ids are stable
// urn:uuid IRIs derived from the collection and the item's XMLData id, and
// the same resource always gives the same bytes, so that ETags computed over
// them are stable. XMLData extensions (dc:language, dc:creator, any
// namespace) are written as elements in their own namespaces. A Stream
// writes the same bytes for a document whose items are read as they are
// written, too many to hold.
//
// JSON Feed is written with Dynamo's own small types (gorilla/feeds'
// misname banner_image and size_in_bytes). The XML formats are written by
// hand, because gorilla/feeds (and encoding/xml under it) cannot
// write prefixed elements in other namespaces, has no place for extensions
// and emits Atom categories without their required term; docs/TRANSFORM.md
// has the whole mapping and the reasons for each choice.
package transform
