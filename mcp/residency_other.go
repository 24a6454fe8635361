//go:build !linux

package mcp

// ReleaseHugeCodeMappings is Linux-only (see residency_linux.go).
func ReleaseHugeCodeMappings() {}
