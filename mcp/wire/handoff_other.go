//go:build !linux

package wire

// Elsewhere the gateway does not hand off: what a yield does depends on
// the scheduler, and only Linux's was measured.
const canYield = false

func schedYield() {}
