package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRun writes a LEG-REVISION folder with direct.txt and mcptray.txt.
func writeRun(t *testing.T, dir, name, direct, mcptray string) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, text := range map[string]string{"direct.txt": direct, "mcptray.txt": mcptray} {
		if err := os.WriteFile(filepath.Join(d, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gapcheck runs the command on a results folder with the given gaps file
// and returns its output and error.
func gapcheck(t *testing.T, results, gaps string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "known-gaps.txt")
	if err := os.WriteFile(path, []byte(gaps), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run([]string{"-gaps", path, results}, &out)
	return out.String(), err
}

func TestGapcheckPassesWhenEveryGapIsListed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRun(t, dir, "server-2025-11-25", "pass ping\npass tools-list\n", "pass ping\npass tools-list\n")
	writeRun(t, dir, "server-2026-07-28", "pass caching\npass tools-list\nfail tasks\n", "fail caching\npass tools-list\nfail tasks\n")
	out, err := gapcheck(t, dir, "# comment\n\nserver 2026-07-28 caching  -32022: not served yet\n")
	if err != nil {
		t.Fatalf("gapcheck: %v\n%s", err, out)
	}
	for _, want := range []string{
		"| 2025-11-25 server | 2/2 | 2/2 | 0 |",
		"| 2026-07-28 server | 2/3 | 1/3 | 1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestGapcheckFails(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, direct, mcptray, gaps, want string
	}{
		{"a new gap", "pass caching\n", "fail caching\n", "", "server 2026-07-28 caching: passes direct, fails through mcptray, and known-gaps.txt does not list it"},
		{"missing through mcptray", "pass caching\n", "", "", "server 2026-07-28 caching: passes direct, fails through mcptray"},
		{"a listed gap now passes", "pass caching\n", "pass caching\n", "server 2026-07-28 caching fixed by now\n", "server 2026-07-28 caching: passes through mcptray now: remove known-gaps.txt:1"},
		{"a listed gap fails direct", "fail caching\n", "fail caching\n", "server 2026-07-28 caching reason\n", "fails direct too, so it is no gap: remove known-gaps.txt:1"},
		{"a listed scenario that did not run", "pass caching\n", "pass caching\n", "server 2026-07-28 cachnig typo\n", "server 2026-07-28 cachnig: not a scenario of this run (known-gaps.txt:1)"},
		{"a listed set that did not run", "pass caching\n", "pass caching\n", "client 2026-07-28 tools_call reason\n", "listed in known-gaps.txt:1, but client 2026-07-28 did not run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeRun(t, dir, "server-2026-07-28", c.direct, c.mcptray)
			out, err := gapcheck(t, dir, c.gaps)
			if !errors.Is(err, errGaps) {
				t.Fatalf("gapcheck: %v, want errGaps\n%s", err, out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, out)
			}
		})
	}
}

func TestGapcheckRejectsBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, direct, mcptray, gaps, want string
	}{
		{"a gap without a reason", "pass a\n", "pass a\n", "server 2026-07-28 a\n", "known-gaps.txt:1: want LEG REVISION SCENARIO REASON"},
		{"a gap with a bad leg", "pass a\n", "pass a\n", "both 2026-07-28 a why\n", `known-gaps.txt:1: leg "both": want server or client`},
		{"a gap with a bad revision", "pass a\n", "pass a\n", "\nserver 2026-7-28 a why\n", `known-gaps.txt:2: revision "2026-7-28": want YYYY-MM-DD`},
		{"a gap listed twice", "pass a\n", "pass a\n", "server 2026-07-28 a why\nserver 2026-07-28 a again\n", "known-gaps.txt:2: server 2026-07-28 a is already listed on line 1"},
		{"a bad result line", "passed a\n", "pass a\n", "", `direct.txt:1: want "pass NAME" or "fail NAME", got "passed a"`},
		{"a scenario twice", "pass a\nfail a\n", "pass a\n", "", "direct.txt:2: scenario a appears twice"},
		{"an empty baseline", "", "pass a\n", "", "no scenario ran direct"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeRun(t, dir, "server-2026-07-28", c.direct, c.mcptray)
			out, err := gapcheck(t, dir, c.gaps)
			if err == nil || errors.Is(err, errGaps) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("gapcheck: %v, want an input error with %q\n%s", err, c.want, out)
			}
		})
	}
}

func TestGapcheckNeedsRunsAndFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := gapcheck(t, dir, ""); err == nil || !strings.Contains(err.Error(), "no LEG-REVISION folder") {
		t.Errorf("empty results: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "client-2025-11-25"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := gapcheck(t, dir, ""); err == nil || !strings.Contains(err.Error(), "direct.txt") {
		t.Errorf("a run without its files: %v", err)
	}
	var out bytes.Buffer
	if err := run([]string{dir}, &out); err == nil || !strings.Contains(err.Error(), "known-gaps.txt") {
		t.Errorf("a missing gaps file: %v", err)
	}
	if err := run(nil, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("no argument: %v", err)
	}
}
