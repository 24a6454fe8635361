//go:build unix

package app

import (
	"errors"
	"syscall"
)

// addrInUse says whether a listen failed because the port is taken.
func addrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
