package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage"
)

func init() {
	register("query", "list the archived items a feed URL's query selects, from the store", runQuery)
}

const queryUsage = `usage: dynamo query [--db DSN] ID [QUERY]
       dynamo query [--db DSN] --all [QUERY]

Prints the items of collection ID's archive (or, with --all, of every
source, as /aggregate does) that QUERY selects, newest first: one line each
with when the item was first seen, its collection, title and link. QUERY is
written as in the feeds' URLs (docs/API.md "Parameters") and read by the same
grammar, with the same limits: title=, link=, description= (or desc=)
conditions joined left to right by op=and|or, max= (default 100),
since= and until= (a date, 2026-11-20, or an RFC 3339 time: items first
seen from since, before until), and index= for one version of ID (1 = the
newest); with --all, category= and dups=include. Quote it for the shell: 'title=rain&op=or&title=snow'.
The exit code is 1 when the store or the collection cannot be read, 2 for a
mistake on the command line or in QUERY.
`

// The queries dynamo query reads: those of the feeds but for the output
// format (it prints a list), XPath (which needs the stored documents the
// API rebuilds) and the archived feed's pages (page=, documents of a feed).
var (
	collectionQuery = dynamo.QuerySyntax{Name: "dynamo query ID", Params: []string{"index", "max", "title", "link", "description", "desc", "op", "since", "until"}}
	allQuery        = dynamo.QuerySyntax{Name: "dynamo query --all", Params: []string{"max", "category", "title", "link", "description", "desc", "op", "since", "until", "dups"}}
)

func runQuery(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() { fmt.Fprint(s.err, queryUsage+"\nflags:\n"); fs.PrintDefaults() }
	db := fs.String("db", "", "store: a postgres:// URL or a file for the embedded store (default $DATABASE_URL, else dynamo.db)")
	all := fs.Bool("all", false, "query every source, as /aggregate does, rather than one collection")
	positional, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	want := 2 // ID and QUERY
	if *all {
		want = 1
	}
	if len(positional) == 0 && !*all || len(positional) > want {
		fmt.Fprint(s.err, queryUsage)
		return 2
	}
	var id, raw string
	if !*all {
		id, positional = positional[0], positional[1:]
	}
	if len(positional) > 0 {
		raw = strings.TrimPrefix(positional[0], "?")
	}
	syntax := collectionQuery
	if *all {
		syntax = allQuery
	}
	q, err := syntax.Parse(raw)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo query: %v\n", err)
		return 2
	}
	for _, name := range q.Ignored { // as the feed URLs ignore them; a typo shows here
		fmt.Fprintf(s.err, "dynamo query: ignoring %q, which is no query parameter\n", name)
	}
	store, err := storage.OpenExisting(ctx, storeDSN(*db))
	if err != nil {
		fmt.Fprintf(s.err, "dynamo query: %v\n", err)
		return 1
	}
	defer store.Close()
	var items []dynamo.ArchivedItem
	if *all {
		var found []dynamo.AggregatedItem
		found, err = store.Aggregate(ctx, dynamo.AggregateQuery{Category: q.Category, Conditions: q.Conditions, Max: q.Limit(), IncludeDuplicates: q.Dups, Since: q.Since, Until: q.Until})
		for _, it := range found {
			items = append(items, it.ArchivedItem)
		}
	} else {
		items, err = store.Items(ctx, dynamo.ItemQuery{SourceID: id, Version: q.Index, Conditions: q.Conditions, Max: q.Limit(), Since: q.Since, Until: q.Until})
	}
	switch {
	case errors.Is(err, dynamo.ErrNotFound) && q.Index > 0:
		fmt.Fprintf(s.err, "dynamo query: collection %q has no version %d\n", id, q.Index)
		return 1
	case errors.Is(err, dynamo.ErrNotFound):
		fmt.Fprintf(s.err, "dynamo query: no collection %q\n", id)
		return 1
	case err != nil:
		fmt.Fprintf(s.err, "dynamo query: %v\n", err)
		return 1
	}
	if err := printItems(s.out, items); err != nil {
		fmt.Fprintf(s.err, "dynamo query: writing the output: %v\n", err)
		return 1
	}
	return 0
}

// printItems writes one aligned line per item: first seen, collection,
// title, link.
func printItems(w io.Writer, items []dynamo.ArchivedItem) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", it.FirstSeen.UTC().Format("2006-01-02 15:04"), it.SourceID, oneLine(it.Item.Title), it.Item.Link)
	}
	return tw.Flush()
}

// oneLine keeps a title on its line and out of the columns' way.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\t", " ")), " ")
}
