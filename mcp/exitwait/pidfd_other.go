//go:build !linux

package exitwait

func awaitExit(int) {}
