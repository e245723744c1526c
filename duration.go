package dynamo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written the way people write intervals in
// requests and files: "90s", "15m", "2h", "1h30m", "7d" (a day is 24 hours).
type Duration time.Duration

// ParseDuration reads a Duration; a bare number is seconds.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return Duration(n * float64(time.Second)), nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil {
			return 0, fmt.Errorf("duration %q: want e.g. 90s, 15m, 2h or 7d", s)
		}
		return Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want e.g. 90s, 15m, 2h or 7d", s)
	}
	return Duration(d), nil
}

// String writes the duration in its shortest whole unit: "2h", "15m", "90s",
// falling back to Go's form ("1h30m0s") when no single unit is whole.
func (d Duration) String() string {
	td := time.Duration(d)
	switch {
	case td == 0:
		return "0s"
	case td%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(td/(24*time.Hour)), 10) + "d"
	case td%time.Hour == 0:
		return strconv.FormatInt(int64(td/time.Hour), 10) + "h"
	case td%time.Minute == 0:
		return strconv.FormatInt(int64(td/time.Minute), 10) + "m"
	case td%time.Second == 0:
		return strconv.FormatInt(int64(td/time.Second), 10) + "s"
	}
	return td.String()
}

// MarshalJSON writes the duration as a string such as "15m".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "15m"-style strings, or a number of seconds. null
// leaves the duration as it is, as encoding/json does for other types.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var secs float64
		if err := json.Unmarshal(b, &secs); err != nil {
			return fmt.Errorf("duration: want a string such as \"15m\" or a number of seconds")
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalText lets a Duration appear in YAML and other text encodings.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "15m"-style text.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
