// Package testdaemon is what package cli's tests use to run mcptray for
// real: a `mcptray daemon` subprocess on temp dirs (the test binary
// itself, with MCPTRAY_TEST_AS_MCPTRAY=1, or a built mcptray), fake server
// entries (mcp/mcptest), the status polled until a condition holds, and the
// command line run in-process against it.
//
// Start starts a daemon on a list of servers, StartConfig on a whole
// mcp.json (mcpServers and x-mcptray), and Instance.StartConfig on paths,
// a binary or an environment the test chose. Waiting goes through
// internal/testkit.
//
// A test binary using it sets Main in its TestMain, and becomes mcptray
// there when MCPTRAY_TEST_AS_MCPTRAY=1. It imports app and mcp/mcptest,
// never ui.
package testdaemon
