package api_test

import (
	"bytes"
	"net/http"
	"regexp"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/schema"
)

// TestXMLDataNamesItsSchema: every XMLData answer names the schema the
// server publishes at schema.XMLDataPath, and that URL answers the schema
// the document is valid against.
func TestXMLDataNamesItsSchema(t *testing.T) {
	t.Parallel()
	e := newsEnv(t, stores[0].open)
	location := regexp.MustCompile(`<resource xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="([^"]+)"`)
	for _, path := range []string{"/resources/news?index=1&type=xmldata", "/resources/news?max=5&type=xmldata", "/aggregate?type=xmldata", "/resources?type=xmldata"} {
		r := e.get(path).must(t, http.StatusOK, path)
		m := location.FindSubmatch(r.body)
		if m == nil || string(m[1]) != e.http.URL+schema.XMLDataPath {
			t.Errorf("%s names schema %q, want %s", path, m, e.http.URL+schema.XMLDataPath)
			continue
		}
		verify.XMLData(t, r.body)
	}
	r := e.get(schema.XMLDataPath).must(t, http.StatusOK, "the schema")
	if !bytes.Equal(r.body, schema.XMLData) || r.header.Get("Content-Type") != "application/xml; charset=utf-8" || r.header.Get("ETag") == "" {
		t.Errorf("the schema: %d bytes, Content-Type %q, ETag %q", len(r.body), r.header.Get("Content-Type"), r.header.Get("ETag"))
	}
	e.get(schema.XMLDataPath, "If-None-Match", r.header.Get("ETag")).must(t, http.StatusNotModified, "the schema again")
}
