//go:build !linux

package downstream

// ReleaseHugeCodeMappings is Linux-only (see residency_linux.go).
func ReleaseHugeCodeMappings() {}

// EvictCodeCache is Linux-only (see residency_linux.go).
func EvictCodeCache() {}
