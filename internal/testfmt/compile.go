package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// compileFormatter turns the output of `go vet -v` or `go build -v` into a
// progress line every few seconds. -v prints the import path of every
// package the go command compiles (or vets) on a line of its own, a few
// hundred on a cold cache; everything else is vet's findings or compiler
// errors, passed on as they are.
type compileFormatter struct {
	w       io.Writer
	start   time.Time
	last    time.Time // when the last progress line was written
	every   time.Duration
	n       int    // package lines seen
	latest  string // the package -v named last
	pending bool   // packages seen since the last progress line
}

func newCompileFormatter(w io.Writer, now time.Time) *compileFormatter {
	return &compileFormatter{w: w, start: now, last: now, every: 5 * time.Second}
}

// isPackageLine reports whether a line of -v output is an import path
// ("fyne.io/fyne/v2/widget", "github.com/mcptray/mcptray/app [app.test]")
// rather than a finding ("app/x.go:3:2: ...") or a header ("# app").
func isPackageLine(s string) bool {
	path, variant, hasVariant := strings.Cut(s, " ")
	if hasVariant && !(strings.HasPrefix(variant, "[") && strings.HasSuffix(variant, "]")) {
		return false
	}
	if path == "" || strings.HasPrefix(path, "#") || strings.ContainsAny(path, ":\t") {
		return false
	}
	return true
}

func (f *compileFormatter) line(s string, now time.Time) {
	if !isPackageLine(s) {
		fmt.Fprintf(f.w, "%s\n", s)
		return
	}
	f.n++
	f.latest = s
	f.pending = true
	f.tick(now)
}

// tick writes the progress line if packages were compiled since the last
// one and it is time.
// Without a new package for 30 s (one cgo package can take minutes: its C
// is one compile), it says it is still compiling.
func (f *compileFormatter) tick(now time.Time) {
	switch {
	case f.pending && now.Sub(f.last) >= f.every:
		fmt.Fprintf(f.w, "     %d packages, %s: %s\n", f.n, duration(now.Sub(f.start)), f.latest)
	case !f.pending && f.n > 0 && now.Sub(f.last) >= 30*time.Second:
		fmt.Fprintf(f.w, "     %d packages, %s: still compiling\n", f.n, duration(now.Sub(f.start)))
	default:
		return
	}
	f.last = now
	f.pending = false
}

// summary is the phase's last word: how many packages it compiled.
func (f *compileFormatter) summary() string {
	if f.n == 0 {
		return "nothing to compile, all in the build cache"
	}
	return fmt.Sprintf("%d %s compiled or vetted", f.n, plural(f.n, "package", "packages"))
}
