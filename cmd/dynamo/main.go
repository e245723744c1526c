// Command dynamo turns annotated HTML pages and native feeds into archived,
// queryable feeds. Each subcommand lives in a file of its own and registers
// itself in commands; main only dispatches.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand: run gets the arguments after its name and
// returns the process's exit code.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdio stdio) int
}

// stdio is where a command reads and writes, so tests can run commands in
// process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

var commands = map[string]command{}

// register adds a subcommand; each command's file calls it from init.
func register(name, summary string, run func(ctx context.Context, args []string, stdio stdio) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}

// dispatch runs the command args name. Asking for help exits 0; no
// command, an unknown one or a mistake in a command's flags or arguments
// exits 2 (docs/OPERATIONS.md "Exit codes").
func dispatch(ctx context.Context, args []string, s stdio) int {
	switch {
	case len(args) == 0:
		usage(s.err)
		return 2
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		usage(s.out)
		return 0
	case args[0] == "--version" || args[0] == "-version":
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(s.err, "dynamo: unknown command %q\n", args[0])
		usage(s.err)
		return 2
	}
	return cmd.run(ctx, args[1:], s)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: dynamo COMMAND [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'dynamo COMMAND -h' for a command's flags.")
}

// parseInterspersed parses fs's flags wherever they stand among the
// arguments and returns the others. ok is false when the command should
// stop with code: 0 for -h, 2 for a mistake (reported by fs).
func parseInterspersed(fs *flag.FlagSet, args []string) (positional []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fs.NArg() == 0 {
			return positional, 0, true
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
