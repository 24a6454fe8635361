package app

import (
	"errors"

	"golang.org/x/sys/windows"
)

// addrInUse says whether a listen failed because the port is taken:
// Winsock's WSAEADDRINUSE (syscall.EADDRINUSE is an errno Windows never
// returns).
func addrInUse(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }
