package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestListingCountsInTheSingular: a listing says "1 version", "1 item", not
// "1 versions": the collections listing's descriptions and the versions
// listing's titles, which a reader shows as they are.
func TestListingCountsInTheSingular(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t))
	e.origin.set("/one.html", []byte(`<html><head><title>One</title></head><body>
<!-- <item:title index="1"> -->Only story<!-- </item:title> --></body></html>`))
	e.addSource("one", "/one.html")
	e.poll("one")
	listing := string(e.do(http.MethodGet, "/resources", nil).must(t, http.StatusOK, "collections").body)
	if !strings.Contains(listing, "(html): 1 version, 1 item.") {
		t.Errorf("the collections listing does not say \"1 version, 1 item\":\n%s", listing)
	}
	versions := string(e.do(http.MethodGet, "/resources/one", nil).must(t, http.StatusOK, "versions").body)
	if !strings.Contains(versions, "Version 1 of One: 1 item (1 new, 0 gone)") {
		t.Errorf("the versions listing does not say \"1 item\":\n%s", versions)
	}
}
