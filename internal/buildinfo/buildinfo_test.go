package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name          string
		bi            debug.BuildInfo
		want          Info
		line, product string
	}{
		{"go test", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: ""}},
			Info{Version: "devel", Revision: "unknown", Go: "go1.26.8"},
			"devel (revision unknown, go1.26.8)", "devel"},
		{"checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261123221500-0123456789ab"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-23T22:15:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			Info{Version: "v0.0.0-20261123221500-0123456789ab", Revision: rev, Time: "2026-11-23T22:15:00Z", Go: "go1.26.8"},
			"v0.0.0-20261123221500-0123456789ab (revision " + rev + ", 2026-11-23T22:15:00Z, go1.26.8)", "v0.0.0-20261123221500-0123456789ab"},
		{"dirty devel", debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}},
			Info{Version: "devel", Revision: rev + "+dirty"},
			"devel (revision " + rev + "+dirty)", "devel-0123456789ab"},
		{"tag", debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}},
			Info{Version: "v1.2.0", Revision: "unknown"}, "v1.2.0 (revision unknown)", "v1.2.0"},
	} {
		got := fromBuildInfo(&tc.bi)
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if got.String() != tc.line || got.Short() != tc.product {
			t.Errorf("%s: String %q, Short %q; want %q, %q", tc.name, got.String(), got.Short(), tc.line, tc.product)
		}
	}
}
