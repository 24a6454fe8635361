package wire

import "syscall"

// On Windows there is no raw path. A pipe's handle is synchronous and a
// socket's is in the completion-port poller, so there is no descriptor
// that a system call could try without blocking: fcntlGetfl reports none
// non-blocking, and rawConnOf and nonBlockingConn return nil for every
// file and connection. PipeFile, RawListener and StreamWriter then take
// the ordinary path with the same results: os.File's and net.Conn's own
// Read and Write, TryWrite writes nothing (the stdin queue's goroutine
// writes the line), and StreamWriter queues every line for its goroutine.
// The sysmon wake-up the raw path saves on Linux (rawio_linux.go) is
// Linux's scheduler's; this fallback costs a goroutine hop per reply
// (docs/performance.md has the numbers under Wine).
const rawIO = false

// fcntlGetfl has nothing to ask: no handle is non-blocking in the Unix
// sense.
func fcntlGetfl(uintptr) (int, syscall.Errno) { return 0, syscall.EWINDOWS }

// rawRead and rawWrite are never reached (no RawConn is taken for raw
// I/O here); they fail rather than block if they ever are.
func rawRead(uintptr, []byte) (int, syscall.Errno)  { return 0, syscall.EWINDOWS }
func rawWrite(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.EWINDOWS }

// HungUp cannot tell here: false. It is not reached either, since a
// StreamWriter has no RawConn on Windows (an output with none counts as
// gone for the gateway's drain).
func HungUp(uintptr) bool { return false }
