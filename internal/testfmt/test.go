package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json), with the build
// events go test -json adds since Go 1.24.
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output, build-fail
	FailedBuild string // the package fail of a package that did not build
}

// pkgState is what the formatter keeps of one package while it runs.
type pkgState struct {
	started time.Time
	// own is the package's output outside any test: what TestMain
	// prints, `FAIL\tpkg\t1.2s`, a panic outside a test.
	own []string
	// tests holds, by top-level test, the output of the test and its
	// subtests until the top-level test ends: a passed or skipped
	// (sub)test's lines are dropped, the rest printed when it fails.
	tests  map[string][]line
	order  []string // top-level tests in the order they started
	passed int
	failed int
	skip   int
}

// line is one Output of a (sub)test.
type line struct{ test, out string }

// testFormatter turns a `go test -json` stream into the lines a person
// reads. Feed it lines with line, and call done at the end.
type testFormatter struct {
	w        io.Writer
	pkgs     map[string]*pkgState
	last     time.Time // when the last line was written
	quiet    time.Duration
	passed   int
	failed   int
	skipped  int
	pkgFails []string // packages that failed (including build failures)
	builds   int      // packages that did not build
	results  int      // packages that reported a result
}

func newTestFormatter(w io.Writer, now time.Time) *testFormatter {
	return &testFormatter{w: w, pkgs: map[string]*pkgState{}, last: now, quiet: 30 * time.Second}
}

func (f *testFormatter) printf(now time.Time, format string, args ...any) {
	fmt.Fprintf(f.w, format, args...)
	f.last = now
}

func (f *testFormatter) write(now time.Time, lines []string) {
	for _, l := range lines {
		io.WriteString(f.w, l)
	}
	if len(lines) > 0 {
		f.last = now
	}
}

func (f *testFormatter) pkg(name string, now time.Time) *pkgState {
	p := f.pkgs[name]
	if p == nil {
		p = &pkgState{started: now, tests: map[string][]line{}}
		f.pkgs[name] = p
	}
	return p
}

// line handles one line of the stream. Lines that are not JSON (go's own
// errors on stderr, the desktop session's) are passed on as they are.
func (f *testFormatter) line(text string, now time.Time) {
	var e event
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &e) != nil || e.Action == "" {
		f.printf(now, "%s\n", text)
		return
	}
	switch e.Action {
	case "build-output":
		// Compiler errors and cgo warnings, as go test prints them.
		f.printf(now, "%s", e.Output)
		return
	case "build-fail":
		return // the package's own fail event (FailedBuild) follows
	}
	if e.Package == "" {
		return
	}
	p := f.pkg(e.Package, now)
	if e.Test == "" {
		f.pkgEvent(p, e, now)
		return
	}
	top, _, _ := strings.Cut(e.Test, "/")
	if _, ok := p.tests[top]; !ok {
		p.tests[top] = nil
		p.order = append(p.order, top)
	}
	switch e.Action {
	case "output":
		p.tests[top] = append(p.tests[top], line{e.Test, e.Output})
	case "pass", "skip":
		if e.Action == "pass" {
			p.passed++
			f.passed++
		} else {
			p.skip++
			f.skipped++
		}
		if e.Test == top {
			delete(p.tests, top)
			break
		}
		// Drop what the subtest (and its subtests) printed; a failed
		// sibling's lines stay for when the top-level test ends.
		kept := p.tests[top][:0]
		for _, l := range p.tests[top] {
			if l.test != e.Test && !strings.HasPrefix(l.test, e.Test+"/") {
				kept = append(kept, l)
			}
		}
		p.tests[top] = kept
	case "fail":
		p.failed++
		f.failed++
		if e.Test == top {
			f.writeTest(now, p.tests[top])
			delete(p.tests, top)
		}
	}
}

// writeTest writes a top-level test's output and that of its failed
// subtests, in the order go test wrote them.
func (f *testFormatter) writeTest(now time.Time, lines []line) {
	for _, l := range lines {
		io.WriteString(f.w, l.out)
	}
	if len(lines) > 0 {
		f.last = now
	}
}

func (f *testFormatter) pkgEvent(p *pkgState, e event, now time.Time) {
	switch e.Action {
	case "start":
		p.started = now
	case "output":
		p.own = append(p.own, e.Output)
	case "pass":
		f.results++
		f.printf(now, "ok   %s %s%s\n", e.Package, seconds(e.Elapsed), p.counts())
		delete(f.pkgs, e.Package)
	case "skip":
		f.results++
		f.printf(now, "?    %s [no test files]\n", e.Package)
		delete(f.pkgs, e.Package)
	case "fail":
		f.results++
		f.pkgFails = append(f.pkgFails, e.Package)
		if e.FailedBuild != "" {
			f.builds++
		}
		// Tests that never ended (a panic, a timeout): their output
		// tells what happened.
		for _, name := range p.order {
			if out, ok := p.tests[name]; ok {
				f.writeTest(now, out)
			}
		}
		own := p.own
		if len(own) == 0 || !strings.HasPrefix(own[len(own)-1], "FAIL") {
			// A package that did not build has no output of its own;
			// keep go test's package FAIL line for whoever parses it.
			reason := ""
			if e.FailedBuild != "" {
				reason = " [build failed]"
			}
			own = append(own, fmt.Sprintf("FAIL\t%s%s\n", e.Package, reason))
		}
		f.write(now, own)
		delete(f.pkgs, e.Package)
	}
}

// counts is a finished package's " (3 passed, 1 skipped)".
func (p *pkgState) counts() string {
	var parts []string
	if p.passed > 0 {
		parts = append(parts, fmt.Sprintf("%d passed", p.passed))
	}
	if p.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", p.failed))
	}
	if p.skip > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", p.skip))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// tick writes which packages still run when nothing was written for a
// while, so a long package does not look like a hung make.
func (f *testFormatter) tick(now time.Time) {
	if now.Sub(f.last) < f.quiet || len(f.pkgs) == 0 {
		return
	}
	names := make([]string, 0, len(f.pkgs))
	for name := range f.pkgs {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := f.pkgs[names[i]].started, f.pkgs[names[j]].started
		if !a.Equal(b) {
			return a.Before(b)
		}
		return names[i] < names[j]
	})
	for i, name := range names {
		names[i] = name + " " + duration(now.Sub(f.pkgs[name].started))
	}
	f.printf(now, "     still running: %s\n", strings.Join(names, ", "))
}

// done writes the count and says whether everything passed.
func (f *testFormatter) done(now time.Time, took time.Duration) bool {
	// Packages with no result: go test was killed, or its output cut.
	var cut []string
	for name := range f.pkgs {
		cut = append(cut, name)
	}
	sort.Strings(cut)
	for _, name := range cut {
		p := f.pkgs[name]
		for _, t := range p.order {
			f.writeTest(now, p.tests[t])
		}
		f.write(now, p.own)
		f.printf(now, "FAIL\t%s [no result: the test binary or go test ended early]\n", name)
		f.pkgFails = append(f.pkgFails, name)
	}
	f.printf(now, "\n%d passed, %d failed, %d skipped", f.passed, f.failed, f.skipped)
	if n := len(f.pkgFails); n > 0 {
		f.printf(now, "; %d %s failed", n, plural(n, "package", "packages"))
		if f.builds > 0 {
			f.printf(now, " (%d did not build)", f.builds)
		}
		f.printf(now, ": %s", strings.Join(f.pkgFails, " "))
	}
	f.printf(now, " (%s)\n", duration(took))
	if f.results == 0 && len(cut) == 0 {
		f.printf(now, "testfmt: no test results in the input (is it `go test -json`?)\n")
		return false
	}
	return f.failed == 0 && len(f.pkgFails) == 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// seconds is a package's elapsed time: "0.02s", "3.41s", "142.1s".
func seconds(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.2fs", s)
	}
	return fmt.Sprintf("%.1fs", s)
}

// duration is a phase's time: "0.4s", "12s", "3m05s".
func duration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	default:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
}
