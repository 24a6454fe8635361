package mcptest

import (
	"regexp"
	"runtime"
	"strings"
	"time"
)

// PollerWait looks for up to d for the first goroutine of this process
// whose stack holds frame (say "exitwait.Wait(") to be parked in the
// runtime's poller ("IO wait"), and returns its state then, or the last
// one seen ("syscall" for one asleep in a system call; "" if no goroutine
// held frame). Tests use it to show a wait happens in the poller, where a
// garbage collection never waits for it.
func PollerWait(frame string, d time.Duration) string {
	state := ""
	for deadline := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if state = goroutineState(frame); state == "IO wait" || time.Now().After(deadline) {
			return state
		}
	}
}

var goroutineHead = regexp.MustCompile(`^goroutine \d+ \[([^\],]+)`)

// goroutineState is the state of the first goroutine whose stack holds
// frame, or "".
func goroutineState(frame string) string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if m := goroutineHead.FindStringSubmatch(g); m != nil && strings.Contains(g, frame) {
			return m[1]
		}
	}
	return ""
}
