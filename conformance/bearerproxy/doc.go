// Command bearerproxy is a loopback reverse proxy that adds
// "Authorization: Bearer <token>" to every request it forwards. The MCP
// conformance suite (scripts/conformance.sh) cannot send headers, and
// mcptray's HTTP endpoint wants a bearer token: the suite talks to this proxy,
// the proxy to mcptray.
//
//	BEARER_TOKEN=… bearerproxy -target http://127.0.0.1:PORT [-listen 127.0.0.1:0]
//
// It prints its own base URL (http://127.0.0.1:PORT, no path) as the first
// line on stdout once it listens, and serves until SIGINT or SIGTERM.
// Request paths pass through unchanged, so /mcp/everything on the proxy is
// /mcp/everything on the target.
//
// Host and Origin headers that name the proxy itself (a loopback host on the
// proxy's port) are rewritten to the same host on the target's port; any
// other Host or Origin passes unchanged, so the target's DNS rebinding
// protection judges a foreign one as if the client had come directly (the
// suite's dns-rebinding-protection scenario sends both). Responses are
// flushed on every write (SSE streams stay live). Both the listen address and
// the target must be loopback: the token never leaves the machine. The token
// comes from the environment, never from argv (other users can read argv in
// ps).
//
// It uses the standard library only.
package main
