package mcp

// server/discover (SEP-2575) is how a 2026-07-28 client tells a server
// that serves the revision from one that predates it. The view's SDK
// server answers it with gatewayProtocolVersions, newest first, and the
// view's capabilities: on a stream as any other request, over HTTP on the
// stateless handler (statelessPOST, gateway_wire26.go). A server/discover
// without the revision's _meta is answered -32601, as by a server that
// predates it, and the client falls back to initialize.

const methodDiscover = "server/discover"
