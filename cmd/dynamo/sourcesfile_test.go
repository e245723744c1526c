package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/sources"
)

// A JSON sources file, decoded entry by entry, reads as the same file in
// YAML does, in both forms, and refuses what is not a list of sources.
func TestParseSourcesFileJSONAsYAML(t *testing.T) {
	svc := &sources.Service{Policies: policy.Names()}
	yamlFile := "sources:\n  - {id: a, url: 'http://127.0.0.1/a', kind: html, interval: 30m, category: news}\n  - {id: b, url: 'http://127.0.0.1/b', policy: hourly}\n"
	want, err := parseSourcesFile([]byte(yamlFile), svc)
	if err != nil || len(want) != 2 {
		t.Fatalf("YAML: %d sources, %v", len(want), err)
	}
	entries := `[{"id":"a","url":"http://127.0.0.1/a","kind":"html","interval":"30m","category":"news"},{"id":"b","url":"http://127.0.0.1/b","policy":"hourly"}]`
	for name, file := range map[string]string{
		"list":   entries,
		"object": `{"comment": {"any": ["thing"]}, "sources": ` + entries + `, "after": 1}`,
	} {
		got, err := parseSourcesFile([]byte(file), svc)
		if err != nil || len(got) != len(want) {
			t.Fatalf("JSON %s: %d sources, %v", name, len(got), err)
		}
		for i := range want {
			got[i].CreatedAt, want[i].CreatedAt = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("JSON %s, entry %d: %+v, YAML %+v", name, i+1, got[i], want[i])
			}
		}
	}
	for name, file := range map[string]string{
		"no sources key":     `{"other": []}`,
		"sources not a list": `{"sources": {"id": "a"}}`,
		"a number":           `3`,
	} {
		if _, err := parseSourcesFile([]byte(file), svc); err == nil || !strings.Contains(err.Error(), "list of sources") {
			t.Errorf("%s: %v, want the list-of-sources error", name, err)
		}
	}
}

// parseSourcesFile collects what eachFileSource reads and checks.
func parseSourcesFile(data []byte, svc *sources.Service) ([]dynamo.Source, error) {
	var list []dynamo.Source
	err := eachFileSource(data, svc, func(src *dynamo.Source) error {
		list = append(list, *src)
		return nil
	})
	return list, err
}
