//go:build !unix

package app

import (
	"testing"
	"time"
)

// startFloor needs a POSIX shell and FIFOs (bench_floor_unix_test.go).
func startFloor(b *testing.B, n int) time.Duration {
	b.Skip("the start-up floor is a POSIX shell script")
	return 0
}
