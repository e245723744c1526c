package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
)

func init() {
	register("version", "print the module version and VCS revision of this binary", runVersion)
}

const versionUsage = `usage: dynamo version   (or dynamo --version)

Prints the module version and the VCS revision this binary was built from,
with the commit's time and the Go toolchain; /healthz and the User-Agent
carry the same version (docs/OPERATIONS.md "Version").
`

func runVersion(_ context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() { fmt.Fprint(s.err, versionUsage) }
	positional, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(positional) > 0 {
		fmt.Fprintf(s.err, "dynamo version: unexpected argument %q\n", positional[0])
		return 2
	}
	fmt.Fprintln(s.out, "dynamo", buildinfo.Read())
	return 0
}
