// Package testdaemon is what package cli's tests use to run mcptray for
// real: a `mcptray daemon` subprocess on temp dirs (the test binary
// itself, with MCPTRAY_TEST_AS_MCPTRAY=1, or a built mcptray), fake server
// entries (mcp/mcptest), the status polled until a condition holds, and the
// command line run in-process against it.
//
// A test binary using it sets Main in its TestMain, and becomes mcptray
// there when MCPTRAY_TEST_AS_MCPTRAY=1. It imports app and mcp/mcptest,
// never ui.
package testdaemon
