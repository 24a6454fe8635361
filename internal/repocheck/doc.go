// Package repocheck holds, in its tests, the repo's rules that are not about
// imports (those are internal/depcheck's):
//
//   - docs stay true: every `pkg.Name`, `Type.Method` and file of the repo
//     that docs/architecture.md, CONTRIBUTING.md, the README and the docs
//     that describe the code as it is mention exists, and the package maps
//     of the first two and docs/internals.md list exactly what
//     `go list ./...` lists
//     (docs_test.go, packagemap_test.go); their relative links lead to a
//     file, and every docs/*.md a Go file, the Makefile or a script names
//     exists;
//   - no committed binary, and no tracked file over 1 MB, outside the
//     fixtures (files_test.go).
//
// The tests read the module's source with go/parser and the tracked files
// with git, from the module's root (two folders up); they start no
// goroutine that outlives a test. `make lint` runs them, and so does
// `make test`. Like depcheck, it has no code of its own.
package repocheck
