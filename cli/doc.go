// Package cli is mcptray's command line: one file per command group, and
// Main, which package main calls with what only it may import (the tray
// app's UI). See README.md for the commands and docs/architecture.md.
//
// Its tests are mcptray's end-to-end tests (e2e_*_test.go) and gateway
// benchmarks (bench_*_test.go): the test binary becomes mcptray, without
// the UI, in a real `mcptray daemon` subprocess (internal/testdaemon); the
// tests of what main links in build the tray and headless binaries
// (e2e_build_test.go).
package cli
