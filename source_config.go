package dynamo

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo/internal/editdist"
)

// The bounds of a source's configuration, which Validate enforces.
const (
	MinInterval          = Duration(10 * time.Second)
	MaxInterval          = Duration(30 * 24 * time.Hour)
	DefaultInterval      = Duration(time.Hour) // the interval of a source registered without one
	MaxSourceIDLength    = 64                  // bytes of an id
	MaxSourceURLLength   = 2048                // bytes of a URL
	MaxTitleLength       = 1024                // bytes of a user's title
	MaxCategoryLength    = 256                 // bytes of a category
	MaxTitlePrefixLength = 256                 // bytes of a title prefix
	MaxSelectorLength    = 1024                // bytes of a selector
)

// PolicySetting is the setting (SettingStore) that holds the global
// scheduling policy's name, shared by every poller on a store.
const PolicySetting = "poller.policy"

// validSourceID is what a source id may be: it is a path segment of every
// feed URL, so it is kept to characters that need no escaping.
var validSourceID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// NewSource is a source with the defaults of a registration that says
// nothing more: kind auto, polled every DefaultInterval.
func NewSource(id, url string) *Source {
	return &Source{ID: id, URL: url, Kind: KindAuto, Interval: DefaultInterval}
}

// Normalize puts the configuration in its one written form: surrounding
// spaces trimmed (but a title prefix's, which may end in a space on
// purpose), a title on one line with single spaces, and the kind in lower
// case.
func (s *Source) Normalize() {
	s.Title = strings.Join(strings.Fields(s.Title), " ")
	for _, f := range []*string{&s.ID, &s.URL, &s.Policy, &s.Category, &s.Timezone} {
		*f = strings.TrimSpace(*f)
	}
	for _, f := range s.selectorFields() {
		*f.value = strings.TrimSpace(*f.value)
	}
	s.SelectorSyntax = strings.ToLower(s.SelectorSyntax)
	s.Kind = SourceKind(strings.ToLower(strings.TrimSpace(string(s.Kind))))
}

// Validate checks the configuration, as every entry point registering or
// changing a source must before storing it. policies are the scheduling
// policy names a source may follow (the poller's, passed by whoever wires
// it): a source that names another is refused, and with none given any
// named policy is. The error wraps ErrInvalid and says what to write.
func (s *Source) Validate(policies []string) error {
	// The URL first: an id left out is derived from it, so a URL that is
	// not one (javascript:…, "http://") leaves the id empty, and the
	// mistake to report is the URL's, not an id the user never gave.
	if s.URL == "" {
		return Invalidf("url is required: the page or feed to poll")
	}
	if err := ValidateSourceURL(s.URL); err != nil {
		return err
	}
	if err := ValidateSourceID(s.ID); err != nil {
		return err
	}
	switch s.Kind {
	case KindAuto, KindHTML, KindFeed, KindSelectors:
	default:
		return Invalidf("kind %q is unknown: want auto, html, feed or selectors (a source's kind must be one of them)", s.Kind)
	}
	if err := s.validateSelectors(); err != nil {
		return err
	}
	if s.Interval < MinInterval || s.Interval > MaxInterval {
		return Invalidf("interval %s must be from %s to %s, written like 90s, 15m, 2h or 1d", s.Interval, MinInterval, MaxInterval)
	}
	if s.Policy != "" && !slices.Contains(policies, s.Policy) {
		if len(policies) == 0 {
			return Invalidf("policy %q is unknown: no policy names are known here; leave it empty to follow the global policy", s.Policy)
		}
		return Invalidf("policy %q is unknown: want one of %s, or empty to follow the global policy", s.Policy, strings.Join(policies, ", "))
	}
	if s.Subscribers < 0 {
		return Invalidf("subscribers must be 0 or more, not %d", s.Subscribers)
	}
	if err := ValidateTimezone(s.Timezone); err != nil {
		return err
	}
	if len(s.Title) > MaxTitleLength {
		return Invalidf("title must be at most %d bytes", MaxTitleLength)
	}
	if !utf8.ValidString(s.Title) || strings.ContainsFunc(s.Title, unicode.IsControl) {
		return Invalidf("title %q must be UTF-8 text without control characters", s.Title)
	}
	if len(s.Category) > MaxCategoryLength || len(s.TitlePrefix) > MaxTitlePrefixLength {
		return Invalidf("category and title_prefix must be at most %d bytes", MaxCategoryLength)
	}
	return nil
}

// selectorFields names the selector settings, with the fields they fill.
func (s *Source) selectorFields() []struct {
	name  string
	value *string
} {
	return []struct {
		name  string
		value *string
	}{
		{"selector_syntax", &s.SelectorSyntax}, {"item_selector", &s.ItemSelector}, {"title_selector", &s.TitleSelector},
		{"link_selector", &s.LinkSelector}, {"description_selector", &s.DescriptionSelector}, {"date_selector", &s.DateSelector},
		{"author_selector", &s.AuthorSelector}, {"image_selector", &s.ImageSelector}, {"enclosure_selector", &s.EnclosureSelector},
	}
}

// validateSelectors checks what the domain can of a selectors source:
// what it needs, the syntax's name, the lengths; that the selectors parse
// is for the one who reads them (package annotate, through sources).
func (s *Source) validateSelectors() error {
	set := false
	for _, f := range s.selectorFields() {
		if len(*f.value) > MaxSelectorLength {
			return Invalidf("%s must be at most %d bytes", f.name, MaxSelectorLength)
		}
		set = set || *f.value != ""
	}
	if s.Kind != KindSelectors {
		if set {
			return Invalidf("selectors are set but kind is %s: only a source of kind selectors is read through them; set kind to selectors, or clear them", s.Kind)
		}
		return nil
	}
	switch s.SelectorSyntax {
	case "", "css", "xpath":
	default:
		return Invalidf("selector_syntax %q is unknown: want css (the default) or xpath", s.SelectorSyntax)
	}
	if s.ItemSelector == "" {
		return Invalidf("item_selector is required for kind selectors: it says where the page's items are")
	}
	if s.TitleSelector == "" && s.LinkSelector == "" && s.DescriptionSelector == "" {
		return Invalidf("a selectors source needs title_selector, link_selector or description_selector: an item needs one of them")
	}
	return nil
}

// SelectorsText writes the selector settings as one JSON object (only
// those set), as the stores keep them in one column; "" when none is set.
func (s *Source) SelectorsText() string {
	m := map[string]string{}
	for _, f := range s.selectorFields() {
		if *f.value != "" {
			m[f.name] = *f.value
		}
	}
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return string(b)
}

// SetSelectorsText reads what SelectorsText wrote.
func (s *Source) SetSelectorsText(text string) error {
	if text == "" {
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		return fmt.Errorf("selectors %q: %w", text, err)
	}
	for _, f := range s.selectorFields() {
		*f.value = m[f.name]
	}
	return nil
}

// ValidateSourceID checks a source id: 1 to 64 letters, digits, '.', '_'
// or '-', starting with a letter or digit.
func ValidateSourceID(id string) error {
	if !validSourceID.MatchString(id) {
		return Invalidf("id %q must be 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit", id, MaxSourceIDLength)
	}
	return nil
}

// ValidateSourceURL checks that raw is what a source may poll: an absolute
// http or https URL of at most MaxSourceURLLength bytes, in UTF-8 without
// the noncharacters U+FFFE and U+FFFF. A URL is written into XML (OPML,
// feeds, XMLData) and JSON, which carry neither other bytes nor those two
// characters: such a URL would come back from an export as another one.
func ValidateSourceURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(raw) > MaxSourceURLLength {
		return Invalidf("url %q must be an absolute http or https URL of at most %d bytes", raw, MaxSourceURLLength)
	}
	if !utf8.ValidString(raw) || strings.ContainsAny(raw, "\uFFFE\uFFFF") {
		return Invalidf("url %q must be UTF-8 text: percent-encode other bytes (%%A2 for the byte A2)", raw)
	}
	return nil
}

// ValidateTimezone checks an IANA time zone name; "" (dates without a zone
// are read in UTC) passes. "Local" is refused: it means the server's zone,
// which differs between machines.
func ValidateTimezone(name string) error {
	if name == "" {
		return nil
	}
	if _, err := time.LoadLocation(name); err != nil || name == "Local" {
		return Invalidf("timezone %q is not an IANA time zone name such as Europe/Paris or UTC", name)
	}
	return nil
}

// DeriveSourceID makes an id from a URL's host and path, for a source
// registered without one: https://www.example.org/news/ → example.org-news.
// It returns "" when the URL has nothing to make one from.
func DeriveSourceID(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	s := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") + "-" + strings.ToLower(u.Path)
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.Trim(b.String(), "-.")
	if len(id) > MaxSourceIDLength {
		id = strings.TrimRight(id[:MaxSourceIDLength], "-.")
	}
	return id
}

// ConfigFields names a source's configuration fields by their JSON names,
// in the order Source declares them.
func ConfigFields() []string {
	return slices.Clone(configFields)
}

// configFields and configIndex are Source's fields without dynamo:"kept".
var configFields, configIndex, keptFields = sourceFields()

func sourceFields() (config []string, index map[string]int, kept map[string]bool) {
	t := reflect.TypeFor[Source]()
	index, kept = map[string]int{}, map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Tag.Get("dynamo") == "kept" {
			kept[name] = true
			continue
		}
		config = append(config, name)
		index[name] = i
	}
	return config, index, kept
}

// ApplyJSON sets the configuration fields that a JSON object names and
// leaves the others as they are: it is how a request body, a PATCH and a
// sources file entry say what a source is. A field Dynamo keeps (state,
// summary, created_at) or an unknown one is refused; values are not
// validated (see Validate). JSON null leaves a field as it is.
func (s *Source) ApplyJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) { // the same error every time
		if keptFields[name] {
			return Invalidf("unknown field %q: %s is kept by Dynamo and cannot be set", name, name)
		}
		if _, ok := configIndex[name]; !ok {
			// Named here rather than by the decoder below, whose
			// "json: unknown field" confuses a YAML file's author.
			e := &UnknownFieldError{Field: name}
			if guess, near := editdist.Nearest(name, configFields); near {
				e.Suggest = guess
			}
			return e
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(s)
}

// UnknownFieldError is a field a source has no setting of (a typo, most
// often), with the nearest one when it is near enough to be what was meant.
// It wraps ErrInvalid.
type UnknownFieldError struct {
	Field   string
	Suggest string // "" when no field is near
}

func (e *UnknownFieldError) Error() string {
	return fmt.Sprintf("%v: unknown field %q: %s", ErrInvalid, e.Field, e.Hint())
}

// Hint says which field was meant, or lists them all when none is near.
func (e *UnknownFieldError) Hint() string {
	if e.Suggest != "" {
		return fmt.Sprintf("did you mean %q?", e.Suggest)
	}
	return "a source's fields are " + strings.Join(configFields, ", ")
}

func (e *UnknownFieldError) Unwrap() error { return ErrInvalid }

// SetConfigText sets one configuration field, named by its JSON name, from
// text as attributes and form fields carry it: strings as they are, whole
// numbers in decimal, true or false, durations as ParseDuration reads them.
// A value that does not read is a ParamError naming the field.
func (s *Source) SetConfigText(name, text string) error {
	i, ok := configIndex[name]
	if !ok {
		return BadParam(name, "%q is not a source setting: want one of %s", name, strings.Join(configFields, ", "))
	}
	v := reflect.ValueOf(s).Elem().Field(i)
	if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		if err := u.UnmarshalText([]byte(text)); err != nil {
			return BadParam(name, "%v", err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Int:
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			return BadParam(name, "%q is not a whole number", text)
		}
		v.SetInt(int64(n))
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return BadParam(name, "%q must be true or false", text)
		}
		v.SetBool(b)
	default: // a field of a kind added without teaching this function
		panic(fmt.Sprintf("dynamo: source field %s has kind %s, which SetConfigText cannot read", name, v.Kind()))
	}
	return nil
}

// ConfigText returns one configuration field as SetConfigText reads it, and
// whether it differs from the field's zero value.
func (s *Source) ConfigText(name string) (text string, set bool) {
	i, ok := configIndex[name]
	if !ok {
		return "", false
	}
	v := reflect.ValueOf(s).Elem().Field(i)
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, _ := m.MarshalText() // Duration's never fails
		return string(b), !v.IsZero()
	}
	switch v.Kind() {
	case reflect.Int:
		return strconv.FormatInt(v.Int(), 10), !v.IsZero()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), !v.IsZero()
	}
	return v.String(), !v.IsZero()
}
