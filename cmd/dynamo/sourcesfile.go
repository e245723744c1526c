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
	"github.com/dynamo-feeds/dynamo/sources"
)

// applySourcesFile registers or updates the sources listed in a YAML or
// JSON file (SPEC §6): a list of objects with the fields POST /api/sources
// takes, or an object whose "sources" key holds that list. Every entry is
// read and checked by svc's rules before any is applied, so a typo changes
// nothing.
func applySourcesFile(ctx context.Context, svc *sources.Service, path string, log *slog.Logger) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("sources file: %w", err)
	}
	list, err := parseSourcesFile(data, svc)
	if err != nil {
		return fmt.Errorf("sources file %s: %w", path, err)
	}
	for i := range list {
		if err := svc.Apply(ctx, &list[i]); err != nil {
			return fmt.Errorf("sources file %s: source %s: %w", path, list[i].ID, err)
		}
		log.Info("source applied from file", "id", list[i].ID, "url", list[i].URL, "kind", list[i].Kind)
	}
	return nil
}

// parseSourcesFile reads the entries through JSON, so that a file says
// exactly what an API request would: each entry is applied to the defaults
// of a registration with dynamo.Source.ApplyJSON and checked with
// svc.Check. Unlike a request, an entry must name its id, which names its
// collection for good.
func parseSourcesFile(data []byte, svc *sources.Service) ([]dynamo.Source, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if m, ok := doc.(map[string]any); ok {
		doc = m["sources"]
	}
	entries, ok := doc.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of sources, or an object with a \"sources\" list")
	}
	list := make([]dynamo.Source, len(entries))
	seen := map[string]bool{}
	for i, entry := range entries {
		if err := readFileSource(entry, &list[i], svc); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if seen[list[i].ID] {
			return nil, fmt.Errorf("entry %d: id %q appears twice", i+1, list[i].ID)
		}
		seen[list[i].ID] = true
	}
	return list, nil
}

// readFileSource reads one entry of a sources file into src.
func readFileSource(entry any, src *dynamo.Source, svc *sources.Service) error {
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	*src = *dynamo.NewSource("", "")
	if err := src.ApplyJSON(bytes.TrimSpace(raw)); err != nil {
		return err
	}
	if src.ID == "" && src.URL != "" {
		return fmt.Errorf("id is required in a sources file (it names the collection)")
	}
	return svc.Check(src)
}
