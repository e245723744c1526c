package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
)

// applySourcesFile registers or updates the sources listed in a YAML or
// JSON file (SPEC §6): a list of objects with the fields POST /api/sources
// takes, or an object whose "sources" key holds that list. Every entry is
// checked before any is applied, so a typo changes nothing.
func applySourcesFile(ctx context.Context, store dynamo.Store, path string, resolve api.Resolver, log *slog.Logger) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("sources file: %w", err)
	}
	sources, err := parseSourcesFile(data)
	if err != nil {
		return fmt.Errorf("sources file %s: %w", path, err)
	}
	for i := range sources {
		if err := upsertSource(ctx, store, &sources[i], resolve); err != nil {
			return fmt.Errorf("sources file %s: source %s: %w", path, sources[i].ID, err)
		}
		log.Info("source applied from file", "id", sources[i].ID, "url", sources[i].URL, "kind", sources[i].Kind)
	}
	return nil
}

// parseSourcesFile reads the entries through JSON, so that a file says
// exactly what an API request would, with the same field names and checks.
func parseSourcesFile(data []byte) ([]dynamo.Source, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if m, ok := doc.(map[string]any); ok {
		doc = m["sources"]
	}
	list, ok := doc.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of sources, or an object with a \"sources\" list")
	}
	sources := make([]dynamo.Source, len(list))
	seen := map[string]bool{}
	for i, entry := range list {
		if m, ok := entry.(map[string]any); ok {
			for _, kept := range []string{"state", "summary", "created_at"} {
				if _, set := m[kept]; set {
					return nil, fmt.Errorf("entry %d: %s is kept by Dynamo and cannot be set", i+1, kept)
				}
			}
		}
		raw, err := json.Marshal(entry)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		src := &sources[i]
		if err := dec.Decode(src); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if err := checkFileSource(src); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if seen[src.ID] {
			return nil, fmt.Errorf("entry %d: id %q appears twice", i+1, src.ID)
		}
		seen[src.ID] = true
	}
	return sources, nil
}

// checkFileSource fills what a file may leave out and refuses what the API
// would refuse.
func checkFileSource(src *dynamo.Source) error {
	if src.URL == "" {
		return fmt.Errorf("url is required")
	}
	if src.ID == "" {
		return fmt.Errorf("id is required in a sources file (it names the collection)")
	}
	switch src.Kind {
	case "":
		src.Kind = dynamo.KindAuto
	case dynamo.KindAuto, dynamo.KindHTML, dynamo.KindFeed:
	default:
		return fmt.Errorf("kind must be auto, html or feed, not %q", src.Kind)
	}
	return nil
}
