// Package wine is tests only: mcptray for Windows, run under Wine on Linux
// as `make test` runs every other test.
//
// Its tests build mcptray.exe, mcptray-google.exe and a fake MCP server
// (mcp/mcptest/fakeserver, as echo.exe) for windows/amd64, and run them in
// a Wine prefix of their own (scripts/wine.sh: .cache/wine/e2e, whose user
// profile is "C:\users\Zoë Test", a space and a non-ASCII letter). They
// drive mcptray.exe only through its command line and its stdio, as a
// person and an assistant would: the package links none of the module
// (only internal/testkit), so what runs is the Windows program, never the
// Linux code. windows_e2e_test.go is the end-to-end test (the daemon, the
// control pipe, connect, a hand edit, toggle, Credential Manager, the Job
// Object, the inbox, the HTTP endpoint); wintests_test.go runs the Windows-only tests of the
// other packages (`go test -c` for windows, then the binary under Wine).
//
// The tests skip, saying why, when wine64 is missing, except in CI
// (CI=true), where they fail: scripts/deps.sh installs Wine. Every process
// of the prefix is ended when the tests finish (wineserver -k). The tests
// build on Linux only (Wine is a Linux program here; /proc finds the
// Windows processes).
package wine
