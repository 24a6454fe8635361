//go:build unix

package app

import "syscall"

var errConnRefused error = syscall.ECONNREFUSED
