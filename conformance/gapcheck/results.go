package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// outcome is a scenario's result in one run.
type outcome struct {
	scenario string
	pass     bool
}

// result is one requirement set's results, direct and through mcptray.
type result struct {
	set     set
	direct  []outcome
	mcptray map[string]bool // scenario → passed
}

// parseOutcomes reads "pass NAME" / "fail NAME" lines. name is the file's
// name for the errors.
func parseOutcomes(name string, r io.Reader) ([]outcome, error) {
	var out []outcome
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || (f[0] != "pass" && f[0] != "fail") {
			return nil, fmt.Errorf("%s:%d: want \"pass NAME\" or \"fail NAME\", got %q", name, n, line)
		}
		if seen[f[1]] {
			return nil, fmt.Errorf("%s:%d: scenario %s appears twice", name, n, f[1])
		}
		seen[f[1]] = true
		out = append(out, outcome{scenario: f[1], pass: f[0] == "pass"})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return out, nil
}

func readOutcomes(path string) ([]outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseOutcomes(path, f)
}

// readRuns reads every LEG-REVISION folder under dir.
// Other entries are ignored; a run folder without both files is an error,
// and so is a direct run with no scenario (the baseline did not run).
func readRuns(dir string) ([]result, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var runs []result
	for _, e := range entries {
		leg, revision, ok := strings.Cut(e.Name(), "-")
		if !e.IsDir() || !ok {
			continue
		}
		s, err := parseSet(leg, revision)
		if err != nil {
			continue
		}
		direct, err := readOutcomes(filepath.Join(dir, e.Name(), "direct.txt"))
		if err != nil {
			return nil, err
		}
		if len(direct) == 0 {
			return nil, fmt.Errorf("%s: no scenario ran direct", filepath.Join(dir, e.Name(), "direct.txt"))
		}
		through, err := readOutcomes(filepath.Join(dir, e.Name(), "mcptray.txt"))
		if err != nil {
			return nil, err
		}
		r := result{set: s, direct: direct, mcptray: map[string]bool{}}
		for _, o := range through {
			r.mcptray[o.scenario] = o.pass
		}
		runs = append(runs, r)
	}
	// The server leg first, then the client's; older revisions first.
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].set.leg != runs[j].set.leg {
			return runs[i].set.leg == "server"
		}
		return runs[i].set.revision < runs[j].set.revision
	})
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no LEG-REVISION folder (server-2026-07-28, …)", dir)
	}
	return runs, nil
}
