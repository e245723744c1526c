package dynamo_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

func TestSourceValidate(t *testing.T) {
	policies := []string{"flat", "smart"}
	good := func() dynamo.Source {
		return dynamo.Source{ID: "news", URL: "http://example.org/news.html", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval}
	}
	for _, tc := range []struct {
		name    string
		change  func(*dynamo.Source)
		mention string // "" for a valid source
	}{
		{"valid", func(*dynamo.Source) {}, ""},
		{"every field", func(s *dynamo.Source) {
			s.Policy, s.Category, s.TitlePrefix, s.Subscribers, s.Timezone, s.Paused = "smart", "Local/Town", "NEWS: ", 3, "Europe/Paris", true
		}, ""},
		{"dots in id", func(s *dynamo.Source) { s.ID = "a/../b" }, `id "a/../b" must be 1 to 64`},
		{"long id", func(s *dynamo.Source) { s.ID = strings.Repeat("a", 65) }, "must be 1 to 64"},
		{"no url", func(s *dynamo.Source) { s.URL = "" }, "url is required"},
		{"ftp", func(s *dynamo.Source) { s.URL = "ftp://example.org/feed" }, "must be an absolute http or https URL"},
		{"relative url", func(s *dynamo.Source) { s.URL = "/news" }, "must be an absolute http or https URL"},
		{"url not UTF-8", func(s *dynamo.Source) { s.URL = "http://example.org/fe\xa2d" }, "must be UTF-8 text: percent-encode other bytes (%A2"},
		{"url with a noncharacter", func(s *dynamo.Source) { s.URL = "http://example.org/\uFFFE" }, "must be UTF-8 text"},
		{"url in UTF-8", func(s *dynamo.Source) { s.URL = "http://example.org/café" }, ""},
		{"kind", func(s *dynamo.Source) { s.Kind = "rss" }, `kind "rss" is unknown: want auto, html, feed or selectors`},
		{"selectors", func(s *dynamo.Source) {
			s.Kind, s.SelectorSyntax, s.ItemSelector, s.TitleSelector = dynamo.KindSelectors, "xpath", "//li", "a"
		}, ""},
		{"selectors without item", func(s *dynamo.Source) { s.Kind, s.TitleSelector = dynamo.KindSelectors, "a" }, "item_selector is required for kind selectors"},
		{"selectors without a field", func(s *dynamo.Source) { s.Kind, s.ItemSelector = dynamo.KindSelectors, "li" }, "needs title_selector, link_selector or description_selector"},
		{"selector syntax", func(s *dynamo.Source) {
			s.Kind, s.SelectorSyntax, s.ItemSelector, s.TitleSelector = dynamo.KindSelectors, "jquery", "li", "a"
		}, `selector_syntax "jquery" is unknown`},
		{"selectors on an html source", func(s *dynamo.Source) { s.ItemSelector = "li" }, "selectors are set but kind is html"},
		{"long selector", func(s *dynamo.Source) {
			s.Kind, s.ItemSelector, s.TitleSelector = dynamo.KindSelectors, "li", strings.Repeat("a ", 600)
		}, "title_selector must be at most 1024 bytes"},
		{"short interval", func(s *dynamo.Source) { s.Interval = dynamo.Duration(1e9) }, "interval 1s must be from 10s to 30d"},
		{"long interval", func(s *dynamo.Source) { s.Interval = 31 * 24 * 3600e9 }, "must be from 10s to 30d"},
		{"policy", func(s *dynamo.Source) { s.Policy = "bogus" }, `policy "bogus" is unknown: want one of flat, smart`},
		{"subscribers", func(s *dynamo.Source) { s.Subscribers = -5 }, "subscribers must be 0 or more"},
		{"timezone", func(s *dynamo.Source) { s.Timezone = "Mars/Olympus" }, `timezone "Mars/Olympus" is not an IANA time zone`},
		{"local timezone", func(s *dynamo.Source) { s.Timezone = "Local" }, "is not an IANA time zone"},
		{"category", func(s *dynamo.Source) { s.Category = strings.Repeat("c", 257) }, "at most 256 bytes"},
		{"title", func(s *dynamo.Source) { s.Title = "Le Monde — à la une" }, ""},
		{"long title", func(s *dynamo.Source) { s.Title = strings.Repeat("t", 1025) }, "title must be at most 1024 bytes"},
		{"title with a control", func(s *dynamo.Source) { s.Title = "a\x00b" }, "without control characters"},
		{"title not UTF-8", func(s *dynamo.Source) { s.Title = "caf\xe9" }, "must be UTF-8 text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := good()
			tc.change(&s)
			err := s.Validate(policies)
			switch {
			case tc.mention == "" && err != nil:
				t.Fatalf("%+v: %v", s, err)
			case tc.mention != "" && (err == nil || !strings.Contains(err.Error(), tc.mention) || !errors.Is(err, dynamo.ErrInvalid)):
				t.Fatalf("%+v: %v, want an ErrInvalid saying %q", s, err, tc.mention)
			}
		})
	}
	// Without policy names, no source may name one.
	s := good()
	s.Policy = "flat"
	if err := s.Validate(nil); err == nil || !strings.Contains(err.Error(), `policy "flat" is unknown`) {
		t.Errorf("policy with no names known: %v", err)
	}
}

func TestSourceNormalizeAndApplyJSON(t *testing.T) {
	s := dynamo.NewSource("news", "http://example.org/")
	s.Category = "kept"
	if err := s.ApplyJSON([]byte(`{"url":" http://example.org/n ","kind":"HTML","interval":"15m","paused":true,"policy":null,"title_prefix":"A: ","title":" My\n  news\t"}`)); err != nil {
		t.Fatal(err)
	}
	s.Normalize()
	want := dynamo.Source{ID: "news", URL: "http://example.org/n", Kind: dynamo.KindHTML, Interval: dynamo.Duration(15 * 60e9), Paused: true, Category: "kept", TitlePrefix: "A: ", Title: "My news"}
	if !reflect.DeepEqual(*s, want) {
		t.Errorf("after ApplyJSON and Normalize: %+v, want %+v", *s, want)
	}
	for body, mention := range map[string]string{
		`{"colour":"red"}`:            `unknown field "colour": a source's fields are id, url,`,
		`{"intervall":"1h"}`:          `unknown field "intervall": did you mean "interval"?`,
		`{"titel_prefix":"A: "}`:      `unknown field "titel_prefix": did you mean "title_prefix"?`,
		`{"state":{}}`:                "state is kept by Dynamo",
		`{"created_at":"2020-01-01"}`: "created_at is kept by Dynamo",
		`{"interval":"soon"}`:         "want e.g. 90s, 15m, 2h",
		`[1]`:                         "cannot unmarshal",
	} {
		if err := s.ApplyJSON([]byte(body)); err == nil || !strings.Contains(err.Error(), mention) {
			t.Errorf("ApplyJSON(%s) = %v, want an error saying %q", body, err, mention)
		}
	}
	// A sources file names the field as its own format does (a YAML key),
	// from the error's parts.
	var unknown *dynamo.UnknownFieldError
	if err := s.ApplyJSON([]byte(`{"url":"http://x/","intervall":"1h"}`)); !errors.As(err, &unknown) || unknown.Field != "intervall" || unknown.Suggest != "interval" || !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("ApplyJSON with intervall = %#v, want an *UnknownFieldError suggesting interval, wrapping ErrInvalid", err)
	}
}

// TestConfigTextRoundTrip copies every configuration field through its text
// form; a field added to dynamo.Source fails it until the fixture sets it.
func TestConfigTextRoundTrip(t *testing.T) {
	src := dynamo.Source{ID: "a", URL: "http://x/", Title: "Mine", Kind: dynamo.KindFeed, Interval: dynamo.Duration(90e9), Policy: "smart",
		Category: "c", TitlePrefix: "P ", Subscribers: 7, Timezone: "UTC", Paused: true, IgnoreRobots: true,
		SelectorSyntax: "xpath", ItemSelector: "//li", TitleSelector: "h2", LinkSelector: "a/@href", DescriptionSelector: "p",
		DateSelector: "time", AuthorSelector: ".by", ImageSelector: "img/@src", EnclosureSelector: "a[@class='mp3']/@href"}
	var copied dynamo.Source
	for _, name := range dynamo.ConfigFields() {
		text, set := src.ConfigText(name)
		if !set {
			t.Errorf("%s is not set in %+v", name, src)
		}
		if err := copied.SetConfigText(name, text); err != nil {
			t.Errorf("SetConfigText(%s, %q): %v", name, text, err)
		}
	}
	if !reflect.DeepEqual(copied, src) {
		t.Errorf("copied through text: %+v, want %+v", copied, src)
	}
	if fields := dynamo.ConfigFields(); fields[0] != "id" || slices.Contains(fields, "state") || slices.Contains(fields, "created_at") {
		t.Errorf("ConfigFields = %v: want the configuration in declaration order, without what Dynamo keeps", fields)
	}
	for name, text := range map[string]string{"subscribers": "many", "paused": "maybe", "interval": "soon", "state": "x"} {
		if err := copied.SetConfigText(name, text); err == nil || !errors.Is(err, dynamo.ErrInvalid) {
			t.Errorf("SetConfigText(%s, %q) = %v, want ErrInvalid", name, text, err)
		}
	}
	if _, set := (&dynamo.Source{}).ConfigText("paused"); set {
		t.Error("a zero field reads as set")
	}
}

// The stores keep the selectors as one text.
func TestSelectorsText(t *testing.T) {
	src := dynamo.Source{SelectorSyntax: "xpath", ItemSelector: "//li[@class='a \"b\"']", TitleSelector: "h2"}
	var back dynamo.Source
	if err := back.SetSelectorsText(src.SelectorsText()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, src) {
		t.Errorf("through text: %+v, want %+v", back, src)
	}
	if (&dynamo.Source{}).SelectorsText() != "" {
		t.Error("no selectors should write nothing")
	}
}

func TestKeepWarnings(t *testing.T) {
	var ws []dynamo.Warning
	for i := range 150 {
		ws = append(ws, dynamo.Warning{Line: i + 1, Message: "m"})
	}
	kept := dynamo.KeepWarnings(ws)
	if len(kept) != dynamo.MaxPollWarnings || kept[len(kept)-1].Message != "51 more warnings not kept" || kept[98].Line != 99 {
		t.Errorf("kept %d, last %v", len(kept), kept[len(kept)-1])
	}
	if got := dynamo.KeepWarnings(ws[:3]); len(got) != 3 {
		t.Errorf("a few warnings should be kept as they are")
	}
}

func TestDeriveSourceID(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.example.org/news/":           "example.org-news",
		"http://example.org/town/news.html":       "example.org-town-news.html",
		"http://EXAMPLE.org":                      "example.org",
		"http://x.org/" + strings.Repeat("a", 80): "x.org-" + strings.Repeat("a", 58),
		"%zz": "",
	} {
		if got := dynamo.DeriveSourceID(in); got != want {
			t.Errorf("DeriveSourceID(%q) = %q, want %q", in, got, want)
		}
	}
}

// A source is shown under its feed's title once known, else the user's.
func TestDisplayTitle(t *testing.T) {
	s := dynamo.Source{ID: "news"}
	for _, step := range []struct {
		change func()
		want   string
	}{
		{func() {}, "news"},
		{func() { s.Title = "My news" }, "My news"},
		{func() { s.Summary.Title = "The Daily" }, "The Daily"},
	} {
		step.change()
		if got := s.DisplayTitle(); got != step.want {
			t.Errorf("DisplayTitle of %+v = %q, want %q", s, got, step.want)
		}
	}
}
