package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	switch err := run(os.Args[1:], os.Stdout); {
	case err == nil:
	case errors.Is(err, errGaps):
		fmt.Fprintln(os.Stderr, "gapcheck:", err)
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "gapcheck:", err)
		os.Exit(2)
	}
}

// errGaps is wrapped by run when the comparison fails the gate (exit 1),
// as opposed to bad input (exit 2).
var errGaps = errors.New("the known gaps do not match")

func run(args []string, stdout io.Writer) error {
	f := flag.NewFlagSet("gapcheck", flag.ContinueOnError)
	f.SetOutput(io.Discard)
	gapsPath := f.String("gaps", "conformance/known-gaps.txt", "the known-gaps file")
	if err := f.Parse(args); err != nil {
		return fmt.Errorf("%w (usage: gapcheck [-gaps FILE] RESULTS)", err)
	}
	if f.NArg() != 1 {
		return errors.New("usage: gapcheck [-gaps FILE] RESULTS")
	}
	gf, err := os.Open(*gapsPath)
	if err != nil {
		return err
	}
	defer gf.Close()
	name := filepath.Base(*gapsPath)
	gaps, err := parseGaps(name, gf)
	if err != nil {
		return err
	}
	runs, err := readRuns(f.Arg(0))
	if err != nil {
		return err
	}
	counts, problems := check(runs, gaps, name)
	printTable(stdout, counts)
	if len(problems) == 0 {
		fmt.Fprintf(stdout, "gapcheck: every scenario that passes direct passes through mcptray, but the %d in %s\n", len(gaps), name)
		return nil
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, "✗", p)
	}
	return fmt.Errorf("%w: %d problem(s)", errGaps, len(problems))
}
