package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/opml"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/poller/robots"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/storage"
)

func init() {
	register("sources", "import an OPML file of feeds as sources, or export the sources as OPML", runSources)
}

const sourcesUsage = `usage: dynamo sources import [--db DSN] [--allow-private] FILE.opml|-
       dynamo sources export [--db DSN] [--base URL] [FILE.opml]

import registers the feeds of an OPML subscription list (the file every
feed reader exports) as sources, with the checks and defaults of
POST /api/sources/import, and prints a line per entry: registered, skipped
(a source with its id or URL exists) or failed (and why). A file that cannot
be read whole registers nothing. The exit code is 0 when no entry failed,
1 when the file or the store cannot be read or an entry failed, 2 for a
mistake on the command line.

export writes every source as OPML 2.0, as GET /api/sources.opml does: each
entry's xmlUrl is the feed Dynamo serves for it under --base, and its
settings travel in dynamo: attributes, which import reads back.
`

// runSources dispatches "sources import" and "sources export".
func runSources(ctx context.Context, args []string, s stdio) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		out, code := s.err, 2
		if len(args) > 0 {
			out, code = s.out, 0
		}
		fmt.Fprint(out, sourcesUsage)
		return code
	}
	switch args[0] {
	case "import":
		return runSourcesImport(ctx, args[1:], s)
	case "export":
		return runSourcesExport(ctx, args[1:], s)
	}
	fmt.Fprintf(s.err, "dynamo sources: unknown subcommand %q: want import or export\n", args[0])
	return 2
}

func sourcesFlags(name string, errOut io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("sources "+name, flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprint(errOut, sourcesUsage+"\nflags:\n")
		fs.PrintDefaults()
	}
	db := fs.String("db", "", "store: a postgres:// URL or a file for the embedded store (default $DATABASE_URL, else dynamo.db)")
	return fs, db
}

// runSourcesImport reads the whole file before opening the store, so that a
// file it cannot read changes nothing.
func runSourcesImport(ctx context.Context, args []string, s stdio) int {
	fs, db := sourcesFlags("import", s.err)
	allowPrivate := fs.Bool("allow-private", false, "allow fetching loopback, private and link-local addresses (for entries of kind auto)")
	files, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(s.err, "dynamo sources import: want one OPML file (or - for standard input), got %d arguments\n", len(files))
		return 2
	}
	name := files[0]
	in := s.in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(s.err, "dynamo sources import: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	entries, err := opml.Parse(in) // bounded by opml.MaxSize
	if err != nil {
		fmt.Fprintf(s.err, "dynamo sources import: %s: %v; nothing was registered\n", name, err)
		return 1
	}
	store, err := storage.Open(ctx, storeDSN(*db))
	if err != nil {
		fmt.Fprintf(s.err, "dynamo sources import: %v\n", err)
		return 1
	}
	defer store.Close()

	client := pollfetch.New(pollfetch.Options{AllowPrivate: *allowPrivate, HostGap: discoverHostGap})
	width := len(fmt.Sprint(len(entries)))
	counts := map[sources.ImportOutcome]int{}
	ew := &errWriter{w: s.out}
	svc := &sources.Service{
		Store:    store,
		Resolve:  sources.NewResolver(client, robots.New(client, robots.Options{}), discovery.SettingMemory{Store: store}),
		Policies: policy.Names(),
	}
	_, err = svc.Import(ctx, entries, func(r sources.ImportResult) {
		counts[r.Outcome]++
		fmt.Fprintf(ew, "[%*d/%d] %s\n", width, r.Entry, len(entries), progressLine(r))
	})
	fmt.Fprintf(ew, "%d entries: %d registered, %d skipped, %d failed\n",
		len(entries), counts[sources.ImportRegistered], counts[sources.ImportSkipped], counts[sources.ImportFailed])
	switch {
	case err != nil:
		fmt.Fprintf(s.err, "dynamo sources import: %v\n", err)
		return 1
	case ew.err != nil:
		fmt.Fprintf(s.err, "dynamo sources import: writing the output: %v\n", ew.err)
		return 1
	case counts[sources.ImportFailed] > 0:
		return 1
	}
	return 0
}

// progressLine describes one entry's outcome: "registered ID URL (kind)",
// "skipped ID URL: why", "failed [ID] URL: why".
func progressLine(r sources.ImportResult) string {
	fields := []string{fmt.Sprintf("%-10s", r.Outcome)}
	if r.ID != "" {
		fields = append(fields, r.ID)
	}
	u := r.URL
	if u == "" {
		u = r.XMLURL
	}
	fields = append(fields, u)
	line := strings.Join(fields, " ")
	if r.Outcome == sources.ImportRegistered {
		return line + " (" + string(r.Kind) + ")"
	}
	return line + ": " + r.Reason
}

func runSourcesExport(ctx context.Context, args []string, s stdio) int {
	fs, db := sourcesFlags("export", s.err)
	base := fs.String("base", "http://127.0.0.1:8080", "the public URL of the Dynamo serving the feeds, for each entry's xmlUrl")
	files, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(files) > 1 {
		fmt.Fprintf(s.err, "dynamo sources export: want at most one output file, got %d arguments\n", len(files))
		return 2
	}
	if !strings.HasPrefix(*base, "http://") && !strings.HasPrefix(*base, "https://") {
		fmt.Fprintf(s.err, "dynamo sources export: --base %q is not an http or https URL\n", *base)
		return 2
	}
	store, err := storage.OpenExisting(ctx, storeDSN(*db))
	if err != nil {
		fmt.Fprintf(s.err, "dynamo sources export: %v\n", err)
		return 1
	}
	defer store.Close()
	list, err := store.Sources(ctx)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo sources export: %v\n", err)
		return 1
	}
	var buf bytes.Buffer
	if err := opml.WriteSources(&buf, list, *base); err != nil {
		fmt.Fprintf(s.err, "dynamo sources export: %v\n", err)
		return 1
	}
	if len(files) == 0 || files[0] == "-" {
		_, err = s.out.Write(buf.Bytes())
	} else {
		err = os.WriteFile(files[0], buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(s.err, "dynamo sources export: %v\n", err)
		return 1
	}
	fmt.Fprintf(s.err, "dynamo sources export: sources exported: %d\n", len(list))
	return 0
}
