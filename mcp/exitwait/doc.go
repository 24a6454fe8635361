// Package exitwait waits for a child process the way the rest of mcptray
// waits for input: parked in the runtime's poller, not asleep inside a
// system call.
//
// exec.Cmd.Wait sleeps in waitid(2) for as long as the child lives — for
// the watchdog and for each server, as long as mcptray runs. That is the
// blocking system call package stdioserver describes: when a garbage
// collection's stop-the-world crosses a goroutine's entry into it (Go
// 1.26; scripts/stwrace.go), the collector waits for the call to return,
// and every other goroutine of the process waits with it — here until the
// child exits, which may be never.
//
// Wait first waits in the poller for the child's pidfd to become readable
// (the child has exited), then lets exec reap it, which no longer blocks.
// Where there is no pidfd (not Linux, or a kernel older than 5.10), it is
// exec.Cmd.Wait: on macOS a waitid, on Windows a WaitForSingleObject on
// the process handle, each asleep in a system call as before.
package exitwait
