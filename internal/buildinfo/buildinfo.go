// Package buildinfo says which Dynamo is running: the module version and the
// VCS revision the Go toolchain stamped into the binary
// (runtime/debug.ReadBuildInfo). `dynamo version`, /healthz, the start-up
// log line and the User-Agent all say it the same way (docs/OPERATIONS.md
// "Version").
package buildinfo

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Info is what a binary knows of its own build.
type Info struct {
	// Version is the module version: a tag such as v1.2.0, a pseudo-version
	// for a build from a checkout, or "devel" when the toolchain recorded
	// none (go run, go test).
	Version string
	// Revision is the VCS commit, with "+dirty" when the checkout had
	// uncommitted changes; "unknown" when the build recorded none (a copy
	// without .git, -buildvcs=false).
	Revision string
	// Time is the commit's time (RFC 3339) or "".
	Time string
	// Go is the toolchain's version.
	Go string
}

// Read returns the running binary's Info, read once.
var Read = sync.OnceValue(func() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "devel", Revision: "unknown"}
	}
	return fromBuildInfo(bi)
})

func fromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Version: bi.Main.Version, Revision: "unknown", Go: bi.GoVersion}
	if info.Version == "" || info.Version == "(devel)" {
		info.Version = "devel"
	}
	// A pseudo-version for a modified checkout ends in +dirty already.
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && info.Revision != "unknown" {
		info.Revision += "+dirty"
	}
	return info
}

// String is the one line that names the build:
// "v0.0.0-20261123221500-0123456789ab (revision 0123456789ab…, 2026-11-23T22:15:00Z, go1.26.8)".
func (i Info) String() string {
	details := []string{"revision " + i.Revision}
	if i.Time != "" {
		details = append(details, i.Time)
	}
	if i.Go != "" {
		details = append(details, i.Go)
	}
	return i.Version + " (" + strings.Join(details, ", ") + ")"
}

// Short is the version as a User-Agent product version carries it: the
// module version, or for a build without one the revision's first 12
// characters, else "devel".
func (i Info) Short() string {
	if i.Version != "devel" || i.Revision == "unknown" {
		return i.Version
	}
	rev := strings.TrimSuffix(i.Revision, "+dirty")
	return "devel-" + rev[:min(12, len(rev))]
}
