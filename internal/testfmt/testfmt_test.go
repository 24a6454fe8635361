package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the formatter's output")

// The streams in testdata are real `go test -json -count=1` output of the
// small packages of a scratch module (one package each: pass, fail, skip,
// build, panic, notests; all: every one in one run), recorded with Go 1.26.
var streams = []struct {
	name string
	ok   bool
}{
	{"pass", true},
	{"fail", false},
	{"skip", true},
	{"build", false},
	{"panic", false},
	{"notests", true},
	{"all", false},
}

var t0 = time.Date(2026, 12, 2, 19, 0, 0, 0, time.UTC)

// format feeds the lines of a recorded stream through a testFormatter, one
// second apart on a fake clock, and returns what it wrote.
func format(t *testing.T, lines []string) (string, bool) {
	t.Helper()
	var out bytes.Buffer
	f := newTestFormatter(&out, t0)
	now := t0
	for _, l := range lines {
		now = now.Add(time.Second)
		f.line(l, now)
		f.tick(now)
	}
	ok := f.done(now, 42*time.Second)
	return out.String(), ok
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestStreamsGolden(t *testing.T) {
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			got, ok := format(t, readLines(t, s.name))
			if ok != s.ok {
				t.Errorf("done() = %v, want %v", ok, s.ok)
			}
			golden := filepath.Join("testdata", s.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update once)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (go test -update rewrites it):\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	for name, want := range map[string]string{
		"pass":    "4 passed, 0 failed, 0 skipped (42s)",
		"skip":    "1 passed, 0 failed, 1 skipped (42s)",
		"notests": "0 passed, 0 failed, 0 skipped (42s)",
		"fail":    "2 passed, 3 failed, 0 skipped; 1 package failed: example.com/pvs/fail (42s)",
		"build":   "0 passed, 0 failed, 0 skipped; 1 package failed (1 did not build): example.com/pvs/build (42s)",
		"panic":   "1 passed, 1 failed, 0 skipped; 1 package failed: example.com/pvs/panic (42s)",
	} {
		got, _ := format(t, readLines(t, name))
		if !strings.Contains(got, "\n"+want+"\n") {
			t.Errorf("%s: the count line is not %q:\n%s", name, want, got)
		}
	}
}

// TestFailedTestsVerbatim: every line a failed test printed, and the
// package's FAIL line, come out exactly as go test wrote them, in order,
// for CI's log parser; a passing test's output does not.
func TestFailedTestsVerbatim(t *testing.T) {
	for _, name := range []string{"fail", "panic", "build"} {
		lines := readLines(t, name)
		got, _ := format(t, lines)
		failed := map[string]bool{}
		var pkgFail bool
		for _, l := range lines {
			var e event
			if json.Unmarshal([]byte(l), &e) == nil && e.Action == "fail" {
				if e.Test == "" {
					pkgFail = true
				}
				failed[e.Test] = true
			}
		}
		if !pkgFail {
			t.Fatalf("%s: the recorded stream has no package fail", name)
		}
		rest := got
		for _, l := range lines {
			var e event
			json.Unmarshal([]byte(l), &e)
			verbatim := (e.Action == "output" && e.Test != "" && failed[e.Test]) ||
				(e.Action == "output" && e.Test == "" && strings.HasPrefix(e.Output, "FAIL")) ||
				e.Action == "build-output"
			if e.Action == "output" && strings.HasPrefix(e.Output, "--- PASS") && strings.Contains(got, e.Output) {
				t.Errorf("%s: a passing test's %q is printed", name, e.Output)
			}
			if !verbatim {
				continue
			}
			i := strings.Index(rest, e.Output)
			if i < 0 {
				t.Errorf("%s: %q of %s is missing or out of order in:\n%s", name, e.Output, e.Test, got)
				break
			}
			if e.Test != "" {
				// A test's lines stay together (its --- FAIL line included).
				rest = rest[i+len(e.Output):]
			}
		}
	}
}

func TestFailLinesForCI(t *testing.T) {
	got, _ := format(t, readLines(t, "all"))
	for _, want := range []string{
		"--- FAIL: TestBad (",
		"--- FAIL: TestSub/broken (",
		"--- FAIL: TestPanics (",
		"\nFAIL\texample.com/pvs/fail\t",
		"\nFAIL\texample.com/pvs/panic\t",
		"\nFAIL\texample.com/pvs/build [build failed]\n",
		"panic: assignment to entry in nil map",
		"build/b.go:2:23: cannot use",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestCutStream: when the stream ends inside a test (go test killed, a
// timeout that took go test down), the running test's output and a FAIL
// line for its package are printed, and the run fails.
func TestCutStream(t *testing.T) {
	lines := readLines(t, "panic")
	var cut []string
	for _, l := range lines {
		if strings.Contains(l, `"Output":"goroutine`) {
			break
		}
		cut = append(cut, l)
	}
	got, ok := format(t, cut)
	if ok {
		t.Error("done() = true for a stream that ended inside a test")
	}
	for _, want := range []string{
		"=== RUN   TestPanics\n    p_test.go:5: about to go wrong\n",
		"panic: assignment to entry in nil map",
		"FAIL\texample.com/pvs/panic [no result: the test binary or go test ended early]\n",
		"1 package failed: example.com/pvs/panic",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestNotJSONPassedOn(t *testing.T) {
	lines := append([]string{"go: downloading example.com/x v1.0.0", "desktop-session: started"}, readLines(t, "pass")...)
	got, ok := format(t, lines)
	if !ok {
		t.Error("done() = false")
	}
	if !strings.HasPrefix(got, "go: downloading example.com/x v1.0.0\ndesktop-session: started\n") {
		t.Errorf("non-JSON lines not passed on first:\n%s", got)
	}
}

func TestNoResults(t *testing.T) {
	got, ok := format(t, []string{"go: cannot find main module"})
	if ok {
		t.Error("done() = true without any result")
	}
	if !strings.Contains(got, "no test results in the input") {
		t.Errorf("no word on the missing results:\n%s", got)
	}
}

func TestStillRunning(t *testing.T) {
	var out bytes.Buffer
	f := newTestFormatter(&out, t0)
	f.line(`{"Action":"start","Package":"example.com/slow"}`, t0)
	f.line(`{"Action":"start","Package":"example.com/slower"}`, t0.Add(time.Second))
	f.tick(t0.Add(29 * time.Second))
	if out.Len() != 0 {
		t.Fatalf("wrote before 30 quiet seconds: %q", out.String())
	}
	f.tick(t0.Add(95 * time.Second))
	want := "     still running: example.com/slow 1m35s, example.com/slower 1m34s\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	f.tick(t0.Add(100 * time.Second))
	if out.String() != want {
		t.Errorf("wrote again 5 s after: %q", out.String())
	}
}

func TestIsPackageLine(t *testing.T) {
	for s, want := range map[string]bool{
		"fyne.io/fyne/v2/widget":                    true,
		"runtime/internal/sys":                      true,
		"github.com/mcptray/mcptray/app [app.test]": true,
		"# github.com/mcptray/mcptray/app":          false,
		"app/run.go:12:3: unreachable code":         false,
		"vet: app/run.go: no such file":             false,
		"":                                          false,
		"\tsome context":                            false,
		"cannot find package x":                     false,
	} {
		if got := isPackageLine(s); got != want {
			t.Errorf("isPackageLine(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCompileProgress(t *testing.T) {
	var out bytes.Buffer
	f := newCompileFormatter(&out, t0)
	f.line("internal/cpu", t0.Add(time.Second))
	f.line("runtime", t0.Add(2*time.Second))
	f.line("# example.com/x", t0.Add(3*time.Second))
	f.line("x/x.go:3:2: fmt.Printf format %d has arg s of wrong type string", t0.Add(3*time.Second))
	f.line("fyne.io/fyne/v2/internal/driver/glfw", t0.Add(6*time.Second))
	f.tick(t0.Add(7 * time.Second))
	f.tick(t0.Add(20 * time.Second)) // nothing new: no line
	f.line("fyne.io/fyne/v2/widget", t0.Add(21*time.Second))
	f.tick(t0.Add(50 * time.Second)) // 29 s quiet: no line
	f.tick(t0.Add(51 * time.Second))
	want := "# example.com/x\n" +
		"x/x.go:3:2: fmt.Printf format %d has arg s of wrong type string\n" +
		"     3 packages, 6.0s: fyne.io/fyne/v2/internal/driver/glfw\n" +
		"     4 packages, 21s: fyne.io/fyne/v2/widget\n" +
		"     4 packages, 51s: still compiling\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	if got := f.summary(); got != "4 packages compiled or vetted" {
		t.Errorf("summary %q", got)
	}
	if got := newCompileFormatter(&out, t0).summary(); got != "nothing to compile, all in the build cache" {
		t.Errorf("empty summary %q", got)
	}
}

// TestRunCommands runs the three commands on real subprocesses: exit
// status, phase lines, and test failing a stream even when CMD exits 0.
func TestRunCommands(t *testing.T) {
	pass, _ := filepath.Abs("testdata/pass.jsonl")
	fail, _ := filepath.Abs("testdata/fail.jsonl")
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"test", "--", "cat", pass}, 0, []string{"==> test\n", "ok   example.com/pvs/pass ", "4 passed, 0 failed, 0 skipped", "==> test: ok, "}},
		{[]string{"test", "--", "cat", fail}, 1, []string{"--- FAIL: TestBad", "==> test: FAILED (exit status 1), "}},
		{[]string{"test", "--", "sh", "-c", "cat " + pass + "; echo oops >&2; exit 3"}, 3, []string{"oops\n", "==> test: FAILED (exit status 3), "}},
		{[]string{"run", "gofmt", "--", "sh", "-c", "echo clean"}, 0, []string{"==> gofmt\nclean\n==> gofmt: ok, "}},
		{[]string{"run", "gofmt", "--", "sh", "-c", "exit 4"}, 4, []string{"==> gofmt: FAILED (exit status 4), "}},
		{[]string{"compile", "vet", "--", "sh", "-c", "echo runtime >&2; echo 'a.go:1:1: bad'; exit 1"}, 1, []string{"a.go:1:1: bad\n", "==> vet: FAILED (exit status 1), 1 package compiled or vetted, "}},
		{[]string{"run", "x", "--", "/nonexistent/cmd"}, 1, []string{"==> x: FAILED (exit status 1)"}},
		{[]string{"bogus", "--", "true"}, 2, nil},
		{[]string{"run", "--", "true"}, 2, nil},
		{[]string{"run", "x", "true"}, 2, nil},
	} {
		var out, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &out, &stderr)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", c.args, code, c.code, out.String(), stderr.String())
		}
		if c.code == 2 && !strings.Contains(stderr.String(), "usage:") {
			t.Errorf("%q: no usage on stderr: %q", c.args, stderr.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q: missing %q in:\n%s", c.args, w, out.String())
			}
		}
	}
}

// TestStdin: without arguments, testfmt reads the stream from stdin
// (`go test -json ./pkg | testfmt`).
func TestStdin(t *testing.T) {
	b, err := os.ReadFile("testdata/skip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run(nil, bytes.NewReader(b), &out, &out); code != 0 {
		t.Errorf("exit %d\n%s", code, out.String())
	}
	sc := bufio.NewScanner(&out)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "ok   example.com/pvs/skip 0.0") || !strings.HasSuffix(lines[1], "s (1 passed, 1 skipped)") {
		t.Errorf("output:\n%s", strings.Join(lines, "\n"))
	}
}
