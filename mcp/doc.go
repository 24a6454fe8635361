// Package mcp speaks the Model Context Protocol for mcptray. It is the only
// package that imports the official go-sdk.
//
// It starts downstream stdio servers in their own process groups, covers the
// SDK's known gaps in one place (non-JSON stdout lines, non-standard
// notification methods, process-group kill, protocol pinning), and runs the
// per-instance watchdog that kills every server's process group when mcptray
// itself dies.
package mcp
