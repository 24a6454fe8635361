//go:build unix

package control

import "syscall"

var errConnRefused error = syscall.ECONNREFUSED
