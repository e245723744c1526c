package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/dynamo-feeds/dynamo/poller/fetch"
)

// A poll of a source: conditional on the validators of the last poll, so
// that an unchanged feed costs the origin a 304 and Dynamo nothing.
func ExampleClient_Get() {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v7"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v7"`)
		w.Write([]byte(`<rss version="2.0"><channel><title>Example</title></channel></rss>`))
	}))
	defer origin.Close()

	// The origin is on loopback, which only AllowPrivate lets through.
	c := fetch.New(fetch.Options{AllowPrivate: true})
	first, err := c.Get(context.Background(), fetch.Request{URL: origin.URL + "/feed"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first.StatusCode, first.ETag, len(first.Body), "bytes")

	again, err := c.Get(context.Background(), fetch.Request{URL: origin.URL + "/feed", ETag: first.ETag})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(again.StatusCode, again.NotModified)

	guarded := fetch.New(fetch.Options{})
	_, err = guarded.Get(context.Background(), fetch.Request{URL: origin.URL + "/feed"})
	var fe *fetch.Error
	if errors.As(err, &fe) {
		fmt.Println(fe.Kind)
	}
	// Output:
	// 200 "v7" 66 bytes
	// 304 true
	// refused
}
