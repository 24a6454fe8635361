package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// set names one requirement-set run: a leg (server or client) at a
// revision.
type set struct {
	leg      string // server or client
	revision string // YYYY-MM-DD
}

func (s set) String() string { return s.leg + " " + s.revision }

var revisionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// parseSet reads a leg and a revision, as in a folder name or a gaps line.
func parseSet(leg, revision string) (set, error) {
	if leg != "server" && leg != "client" {
		return set{}, fmt.Errorf("leg %q: want server or client", leg)
	}
	if !revisionRE.MatchString(revision) {
		return set{}, fmt.Errorf("revision %q: want YYYY-MM-DD", revision)
	}
	return set{leg, revision}, nil
}

// gap is one line of the known-gaps file.
type gap struct {
	set      set
	scenario string
	reason   string
	line     int
}

// key identifies a scenario within a set.
type key struct {
	set      set
	scenario string
}

// parseGaps reads the known-gaps file: "LEG REVISION SCENARIO REASON…" a
// line, blank lines and '#' comments ignored. name is the file's name for
// the errors.
func parseGaps(name string, r io.Reader) ([]gap, error) {
	var gaps []gap
	seen := map[key]int{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("%s:%d: want LEG REVISION SCENARIO REASON, got %q", name, n, line)
		}
		s, err := parseSet(f[0], f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		k := key{s, f[2]}
		if first, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s:%d: %s %s is already listed on line %d", name, n, s, f[2], first)
		}
		seen[k] = n
		gaps = append(gaps, gap{set: s, scenario: f[2], reason: strings.Join(f[3:], " "), line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return gaps, nil
}
