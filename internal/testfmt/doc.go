// Command testfmt is what makes `make test` show that it is alive: a line
// per phase with its time, a progress line while the cgo packages compile,
// a line per test package as it finishes, and at the end a count
// `N passed, N failed, N skipped`.
//
//	testfmt run NAME -- CMD [ARG...]
//	testfmt compile NAME -- CMD [ARG...]
//	testfmt [test [-- CMD [ARG...]]]
//
// Each starts with `==> NAME` and ends with `==> NAME: ok, TIME` or
// `==> NAME: FAILED (exit status N), TIME`, and exits with CMD's status
// (1 when CMD could not start).
//
// run passes CMD's output on as it is.
//
// compile is for a `go vet -v` or `go build -v`: the package names -v
// prints become a progress line every few seconds; everything else (vet's
// findings, compiler errors) is passed on as it is.
//
// test reads `go test -json` from CMD, or from stdin without one (plain
// `testfmt` is `testfmt test`). It writes a line for every package with its
// time and counts; a failed test's output, a failed package's own output
// (its `FAIL` line) and build errors verbatim, as `go test` prints them
// without -json; a line naming the packages still running after 30 quiet
// seconds; and the count at the end. It fails when a test or a package
// failed, even if CMD's status says otherwise.
//
// It imports only the standard library, so building it cold takes seconds.
// The Makefile builds it once into .cache/testfmt.
package main
