// Package examples holds annotated example pages, embedded in the binary so
// that the playground, the documentation and the tests can use them
// without files beside the program. They show the annotation language on
// the kinds of pages it was made for: a news list, a blog, legacy pages in
// windows-1252 and KOI8-R, and a sloppily annotated page that still yields
// most of its content (with warnings).
package examples

import (
	"embed"
	"fmt"
)

// Pages holds the example pages, by file name, byte for byte as a server
// would send them (legacy-1252.html is windows-1252, koi8-r.html is KOI8-R).
//
//go:embed *.html
var Pages embed.FS

// Page describes one example page and how it is meant to be served: its
// relative links and dates only come out as intended at its path, with its
// content type and in its time zone.
type Page struct {
	File        string // name in Pages
	Path        string // URL path to serve it at, e.g. "/news/index.html"
	ContentType string // the Content-Type header to serve it with
	TimeZone    string // IANA zone of the dates written on it
	Title       string // what it shows
}

// List is every example page, in the order the documentation presents them.
var List = []Page{
	{
		File: "news.html", Path: "/news/index.html", ContentType: "text/html; charset=utf-8", TimeZone: "America/New_York",
		Title: "A local newspaper's front page: nine items in tables, legacy dates, images, dc: extensions",
	},
	{
		File: "blog.html", Path: "/blog/index.html", ContentType: "text/html; charset=utf-8", TimeZone: "Europe/London",
		Title: "A blog: rich HTML descriptions, relative links under <base href>, channel from the page's <title>",
	},
	{
		File: "legacy-1252.html", Path: "/mairie/actualites.html", ContentType: "text/html; charset=iso-8859-1", TimeZone: "Europe/Paris",
		Title: "A French town hall's page in windows-1252 (served as ISO-8859-1), dates in French",
	},
	{
		File: "koi8-r.html", Path: "/gazeta/novosti.html", ContentType: "text/html", TimeZone: "Europe/Moscow",
		Title: "A Russian city paper in KOI8-R, declared only by <meta http-equiv>",
	},
	{
		File: "sloppy.html", Path: "/club/news.htm", ContentType: "text/html", TimeZone: "America/Chicago",
		Title: "A sloppily annotated club page: most content extracted, every mistake reported",
	},
}

// Read returns the bytes of the example page with the given file name.
func Read(file string) ([]byte, error) {
	data, err := Pages.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("example %s: %w", file, err)
	}
	return data, nil
}
