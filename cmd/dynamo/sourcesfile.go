package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/sources"
)

// applySourcesFile registers or updates the sources listed in a YAML or
// JSON file (README.md "Configuration"): a list of objects with the fields POST /api/sources
// takes, or an object whose "sources" key holds that list. Every entry is
// read and checked by svc's rules before any is applied, so a typo changes
// nothing. The file is read twice, checked and then applied, rather than
// held as a list: 100,000 checked sources would hold 140 MB.
func applySourcesFile(ctx context.Context, svc *sources.Service, path string, log *slog.Logger) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("sources file: %w", err)
	}
	if err := eachFileSource(data, svc, func(*dynamo.Source) error { return nil }); err != nil {
		return fmt.Errorf("sources file %s: %w", path, err)
	}
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
	add := func(raw []byte) error {
		n++
		var src dynamo.Source
		if err := readFileSource(raw, &src, svc); err != nil {
			return fmt.Errorf("entry %d: %w", n, err)
		}
		if seen[src.ID] {
			return fmt.Errorf("entry %d: id %q appears twice", n, src.ID)
		}
		seen[src.ID] = true
		return fn(&src)
	}
	if json.Valid(data) {
		return eachJSONEntry(data, add)
	}
	return eachYAMLEntry(data, add)
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
func eachYAMLEntry(data []byte, add func([]byte) error) error {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if m, ok := doc.(map[string]any); ok {
		doc = m["sources"]
	}
	entries, ok := doc.([]any)
	if !ok {
		return errNotAList
	}
	for _, entry := range entries {
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
