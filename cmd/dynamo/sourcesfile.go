package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/sources"
)

// readSourcesFile reads a YAML or JSON sources file (README.md
// "Configuration"): a list of objects with the fields POST /api/sources
// takes, or an object whose "sources" key holds that list. Every entry is
// checked by the domain's rules, which need no store, so that serve calls
// it before opening the store: a file with a typo changes nothing and
// creates or migrates no store. policies are the names a source may
// follow.
func readSourcesFile(path string, policies []string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sources file: %w", err)
	}
	check := &sources.Service{Policies: policies}
	if err := eachFileSource(data, check, func(*dynamo.Source) error { return nil }); err != nil {
		return nil, fmt.Errorf("sources file %s: %w", path, err)
	}
	return data, nil
}

// applySourcesFile registers or updates the sources of a file that
// readSourcesFile read and checked, through svc, in order. The file is
// read twice, checked and then applied, rather than held as a list:
// 100,000 checked sources would hold 140 MB.
func applySourcesFile(ctx context.Context, svc *sources.Service, path string, data []byte, log *slog.Logger) error {
	return eachFileSource(data, svc, func(src *dynamo.Source) error {
		if err := svc.Apply(ctx, src); err != nil {
			return fmt.Errorf("sources file %s: source %s: %w", path, src.ID, err)
		}
		log.Info("source applied from file", "id", src.ID, "url", src.URL, "kind", src.Kind)
		return nil
	})
}

// eachFileSource reads the entries through JSON, so that a file says
// exactly what an API request would: each entry is applied to the defaults
// of a registration with dynamo.Source.ApplyJSON, checked with svc.Check
// and handed to fn, in order. Unlike a request, an entry must name its id,
// which names its collection for good, and no id may appear twice.
func eachFileSource(data []byte, svc *sources.Service, fn func(*dynamo.Source) error) error {
	seen := map[string]bool{}
	n := 0
	isJSON := json.Valid(data)
	add := func(raw []byte) error {
		n++
		var src dynamo.Source
		if err := readFileSource(raw, &src, svc); err != nil {
			var unknown *dynamo.UnknownFieldError
			if !isJSON && errors.As(err, &unknown) {
				// The entry's JSON form is what was refused; its author
				// wrote a YAML key, on a line of the file.
				return fmt.Errorf("entry %d%s: unknown key %q: %s", n, yamlKeyLine(data, n, unknown.Field), unknown.Field, unknown.Hint())
			}
			return fmt.Errorf("entry %d: %w", n, err)
		}
		if seen[src.ID] {
			return fmt.Errorf("entry %d: id %q appears twice", n, src.ID)
		}
		seen[src.ID] = true
		return fn(&src)
	}
	if isJSON {
		return eachJSONEntry(data, add)
	}
	return eachYAMLEntry(data, add)
}

// yamlKeyLine finds the line of key in the nth entry of a YAML sources
// file, as ", line 7", or "" when the file does not say (which it does
// whenever it decoded). Only a refused file is decoded a second time so.
func yamlKeyLine(data []byte, n int, key string) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) != 1 {
		return ""
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(list.Content); i += 2 {
			if list.Content[i].Value == "sources" {
				list = list.Content[i+1]
			}
		}
	}
	if list.Kind != yaml.SequenceNode || n < 1 || n > len(list.Content) {
		return ""
	}
	entry := list.Content[n-1]
	for entry.Kind == yaml.AliasNode && entry.Alias != nil {
		entry = entry.Alias
	}
	if entry.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(entry.Content); i += 2 {
		if entry.Content[i].Value == key {
			return fmt.Sprintf(", line %d", entry.Content[i].Line)
		}
	}
	return fmt.Sprintf(", line %d", entry.Line)
}

// errNotAList is a sources file whose top level is neither form.
var errNotAList = errors.New(`want a list of sources, or an object with a "sources" list`)

// eachJSONEntry hands each entry of a JSON sources file to add as it is
// decoded, so that a file of 100,000 sources never exists as a tree of
// values (docs/STORAGE.md, "The road to ten million sources").
func eachJSONEntry(data []byte, add func([]byte) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == json.Delim('{') {
		for tok = nil; tok == nil && dec.More(); {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			if key != "sources" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				continue
			}
			if tok, err = dec.Token(); err != nil {
				return err
			}
		}
	}
	if tok != json.Delim('[') {
		return errNotAList
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := add(raw); err != nil {
			return err
		}
	}
	return nil
}

// eachYAMLEntry hands each entry of a YAML sources file to add, as JSON.
// A file of either form whose list is a block sequence (README.md's
// example) is read entry by entry: each entry's lines are decoded on
// their own, so that 100,000 entries never exist as one tree (yaml.v3
// builds a whole document's tree: 527-630 MB to check 100,000 entries,
// against 70-73 MB entry by entry; docs/benchmarks/load.md). Any other
// file (a flow list, "sources: [...]"), one whose entries could mean
// something else out of context (anchors, aliases, tags, directives,
// several documents, tabs in the indentation), and any entry that does
// not decode alone (a quoted string running on past its entry's lines) is
// decoded whole, as before, and its entries from there on handed from
// that tree: every file reads as yaml.v3 reads it whole, errors included
// (FuzzYAMLEntries).
func eachYAMLEntry(data []byte, add func([]byte) error) error {
	n, done, err := eachYAMLEntryAlone(data, add)
	if err != nil || done {
		return err
	}
	return eachYAMLEntryWhole(data, n, add)
}

// eachYAMLEntryAlone hands add the entries of a YAML sources file laid out
// as layoutYAML reads, each decoded alone, and says how many it handed and
// whether that was all of them: not when the file is laid out otherwise
// or an entry does not decode alone, where the file is to be read whole.
func eachYAMLEntryAlone(data []byte, add func([]byte) error) (n int, done bool, err error) {
	l, ok := layoutYAML(data)
	if !ok {
		return 0, false, nil
	}
	if l.sources < 0 {
		// What comes before the list (comments, "---") must read too.
		var doc any
		if err := yaml.Unmarshal(data[:l.entries[0]], &doc); err != nil || doc != nil {
			return 0, false, nil
		}
	} else {
		// The "sources:" line and what follows it up to the list (blank
		// lines, comments) must read alone, as no other piece holds them.
		var doc any
		err := yaml.Unmarshal(data[l.sources:l.entries[0]], &doc)
		if m, _ := doc.(map[string]any); err != nil || len(m) != 1 || m["sources"] != nil {
			return 0, false, nil
		}
		// The file with a list of one string found nowhere in it in
		// place of its list must be a mapping whose sources is that list:
		// the line replaced was its sources key, not a line of another
		// key's quoted string.
		mark := "dynamo-entries"
		for bytes.Contains(data, []byte(mark)) {
			mark += "-"
		}
		rest := slices.Concat(data[:l.sources], []byte("sources: ["+mark+"]\n"), data[l.end:])
		var full any
		err = yaml.Unmarshal(rest, &full)
		m, _ := full.(map[string]any)
		if list, isList := m["sources"].([]any); err != nil || !isList || len(list) != 1 || list[0] != mark {
			return 0, false, nil
		}
	}
	for i, start := range l.entries {
		end := l.end
		if i+1 < len(l.entries) {
			end = l.entries[i+1]
		}
		var entry []any
		if err := yaml.Unmarshal(data[start:end], &entry); err != nil || len(entry) != 1 {
			return n, false, nil
		}
		raw, err := json.Marshal(entry[0])
		if err != nil {
			return n, false, nil
		}
		if err := add(raw); err != nil {
			return n, false, err
		}
		n++
	}
	return n, true, nil
}

// eachYAMLEntryWhole decodes a YAML sources file whole and hands add its
// entries after the first skip. A file with nothing in it but comments,
// and a "sources:" key with nothing under it, are lists of no sources, as
// "sources: []" is: an operator who comments out every entry means none,
// not a file serve refuses to start with.
func eachYAMLEntryWhole(data []byte, skip int, add func([]byte) error) error {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if m, ok := doc.(map[string]any); ok {
		list, given := m["sources"]
		if !given {
			return errNotAList
		}
		doc = list
	}
	if doc == nil {
		return nil
	}
	entries, ok := doc.([]any)
	if !ok {
		return errNotAList
	}
	for _, entry := range entries[min(skip, len(entries)):] {
		raw, err := json.Marshal(entry)
		if err != nil {
			return err
		}
		if err := add(raw); err != nil {
			return err
		}
	}
	return nil
}

// yamlLayout is where a YAML sources file's list of entries lies.
type yamlLayout struct {
	entries []int // the offset of each entry's first line ("- ")
	end     int   // the end of the last entry
	sources int   // for a mapping, the offset of its "sources:" line; -1 for a list
}

// indicators finds what could make a YAML entry mean something else out
// of its context: an anchor, an alias or a tag (each starts a node, after
// a space, an indicator or the start of a line), a directive or a
// document marker; and the line breaks YAML has beside "\n" and "\r\n"
// (a lone "\r", NEL, LS, PS), which the lines are not cut at. It finds
// more than these (a URL's " &b"), which only costs reading such a file
// whole.
var indicators = regexp.MustCompile(`(?m)(?:^|[ \t\[\]{},:?-])[&*!]|^%|^---|^\.\.\.|\r[^\n]|\r\z|[\x{85}\x{2028}\x{2029}]`)

// layoutYAML finds the entries of a YAML sources file whose list is a
// block sequence: the whole file ("- id: …" at the start of a line), or
// the value of a top-level "sources:" line (its "- " lines indented as the
// first one). The file may start with comments and a "---" line. ok is
// false for any other file, which is read whole.
func layoutYAML(data []byte) (l yamlLayout, ok bool) {
	body := 0 // after the leading comments and "---", if any
	for off := 0; off < len(data); {
		line, end := yamlLine(data, off)
		text := bytes.TrimSpace(line)
		if string(text) == "---" {
			body = end
			break
		}
		if len(text) > 0 && text[0] != '#' {
			break
		}
		off = end
	}
	if indicators.Match(data[body:]) {
		return l, false
	}
	const (
		before = iota // before the list
		in            // in it
		after         // after it: a mapping's other keys
	)
	state, indent, sourcesLine, content := before, -1, -1, false
	for off := body; off < len(data); {
		line, end := yamlLine(data, off)
		text := bytes.TrimLeft(line, " ")
		depth := len(line) - len(text)
		item := len(text) > 0 && text[0] == '-' && (len(text) == 1 || text[1] == ' ')
		first := !content
		if len(text) > 0 && text[0] != '#' {
			content = true
		}
		switch {
		case len(text) > 0 && text[0] == '\t':
			return l, false // a tab in the indentation
		case len(text) == 0 || text[0] == '#':
			// blank or a comment: part of what surrounds it
		case state == before && first && item && depth == 0:
			state, indent = in, 0 // the file is the list
			l.entries = append(l.entries, off)
		case state == before && sourcesLine < 0:
			if depth == 0 && isSourcesKey(text) {
				sourcesLine = off
			} else if first && depth > 0 {
				return l, false // an indented top level
			}
			// else a line of another top-level key
		case state == before && item:
			state, indent = in, depth // the first entry under sources:
			l.entries = append(l.entries, off)
		case state == before:
			return l, false // sources: holds no block sequence
		case state == in && depth == indent && item:
			l.entries = append(l.entries, off)
		case state == in && depth > indent:
			// the current entry's lines
		case state == in:
			if sourcesLine < 0 {
				return l, false // the file is a list: nothing may follow it
			}
			state, l.end = after, off
		}
		off = end
	}
	if state == before {
		return l, false
	}
	if state == in {
		l.end = len(data)
	}
	l.sources = sourcesLine
	return l, true
}

// yamlLine is the line of data at off, without its line break, and the
// offset of the next.
func yamlLine(data []byte, off int) (line []byte, next int) {
	next = len(data)
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		next = off + i + 1
	}
	return bytes.TrimRight(data[off:next], "\r\n"), next
}

// isSourcesKey reports whether a line is "sources:", maybe with a comment
// after a space ("sources:#" is another key).
func isSourcesKey(text []byte) bool {
	rest, ok := bytes.CutPrefix(text, []byte("sources:"))
	if !ok || len(rest) > 0 && rest[0] != ' ' {
		return false
	}
	rest = bytes.TrimLeft(rest, " ")
	return len(rest) == 0 || rest[0] == '#'
}

// readFileSource reads one entry of a sources file, as JSON, into src.
func readFileSource(raw []byte, src *dynamo.Source, svc *sources.Service) error {
	*src = *dynamo.NewSource("", "")
	if err := src.ApplyJSON(bytes.TrimSpace(raw)); err != nil {
		return err
	}
	if src.ID == "" && src.URL != "" {
		return fmt.Errorf("id is required in a sources file (it names the collection)")
	}
	return svc.Check(src)
}
