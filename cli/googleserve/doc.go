// Package googleserve is the command line of mcptray-google, the
// executable that runs mcptray's Google servers: `serve gcal` (Google
// Calendar) and `serve gmail`. `mcptray serve gcal` checks its flags and
// then becomes mcptray-google (an exec, same process), so the official
// Google API clients, with the gRPC, protobuf and OpenTelemetry packages
// they link, are in that binary only: mcptray's daemon and tray app stay
// lean, and a Google server's process is a small pure-Go one whatever
// mcptray build started it (docs/google-accounts.md).
//
// It reads the Google settings of mcp.json (x-mcptray.google) and the
// accounts of the data dir (app/googlekeys), and imports neither package
// cli nor app. Serve blocks until the client closes stdin or ctx ends; it
// starts no goroutine that outlives it.
package googleserve
