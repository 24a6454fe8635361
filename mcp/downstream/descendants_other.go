//go:build unix && !linux

package downstream

import (
	"syscall"
	"time"
)

// A stray is a server's descendant outside its process group. Without
// /proc none is found (so it holds nothing): only the group is signalled.
type stray struct{}

func procStart(int) uint64 { return 0 }

func scanStrays(int, uint64, int, []byte, []stray) []stray { return nil }

func strayAlive(stray) bool { return false }

func signalStray(stray, syscall.Signal) {}

func killMarked([][]byte, time.Duration) int { return 0 }
