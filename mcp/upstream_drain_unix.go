//go:build unix

package mcp

// uncheckedOutputGone is what drain assumes of an output it cannot check
// (no descriptor): gone, so the calls of an assistant that ended its
// input are cancelled at once. Streams with a descriptor are checked.
const uncheckedOutputGone = true
