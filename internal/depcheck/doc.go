// Package depcheck holds, in its test, the module's dependency rules
// (DESIGN.md section 2: main → cli/ui → app → {mcp…, store}): `go test
// ./internal/depcheck` lists every package of the module and its tests
// with `go list` and fails on a forbidden import. It has no code of its
// own.
package depcheck
