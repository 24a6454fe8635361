package downstream

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// subreaper counts the callers of Subreap that have not stopped yet; the
// first one turns this process into a subreaper and starts the reaper,
// the last stop undoes both.
var subreaper struct {
	mu    sync.Mutex
	users int
	quit  chan struct{} // closed to stop the reaper
	done  chan struct{} // closed when the reaper has returned
}

// reapPause is the least time between two scans of the reaper, so a server
// that forks orphans in a loop costs at most 20 scans of /proc a second.
const reapPause = 50 * time.Millisecond

// Subreap makes this process a child subreaper (PR_SET_CHILD_SUBREAPER):
// a server's descendant whose parent dies, as in a double fork after
// setsid(), is reparented to mcptray rather than to init, so it stays
// within reach of the stop path; and it starts the goroutine that reaps
// such adopted children when they exit. Call stop when no server is left.
// Every child this process waits for itself must either be started by
// this package or stay in this process's group (see reapAdopted).
func Subreap() (stop func(), err error) {
	s := &subreaper
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return nil, fmt.Errorf("becoming a child subreaper: %w", err)
		}
		s.quit, s.done = make(chan struct{}), make(chan struct{})
		go reaper(s.quit, s.done)
	}
	s.users++
	var once sync.Once
	return func() { once.Do(unsubreap) }, nil
}

func unsubreap() {
	s := &subreaper
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users--; s.users > 0 {
		return
	}
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	close(s.quit)
	<-s.done
	reapAdopted() // whoever exited last
}

// reaper reaps adopted children after each SIGCHLD, which the kernel sends
// when a child exits and when a dead orphan is reparented to us.
func reaper(quit, done chan struct{}) {
	defer close(done)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	defer signal.Stop(chld)
	reapAdopted() // orphans that died before Notify
	for {
		select {
		case <-chld:
		case <-quit:
			return
		}
		reapAdopted()
		pause := time.NewTimer(reapPause)
		select {
		case <-pause.C:
		case <-quit:
			pause.Stop()
			return
		}
	}
}

// reapAdopted reaps every zombie child of ours that nobody else will wait
// for. That must not take the exit status a Wait elsewhere is waiting for
// (exec would then fail with ECHILD and lose the server's exit code), so
// a zombie is ours to reap only when:
//   - it is not a child this package started and waits for (a server or the
//     watchdog; see startOwned: registered under the same lock this scan
//     holds, so one that exits at once is registered before it is seen);
//   - it is not in this process's own group: a child that other code here
//     started with exec (the browser opener) inherits the group and is
//     waited for by that code, while adopted orphans come from servers,
//     which run in groups of their own, or left for a session of their
//     own.
//
// It waits for each one by pid (waitid P_PID, WNOHANG), never P_ALL, so
// it cannot take any other child's status.
func reapAdopted() {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	self, group := os.Getpid(), syscall.Getpgrp()
	eachProc(func(pid int, st procStat) bool {
		if st.ppid != self || st.state != 'Z' || st.pgrp == group || owned.pids[pid] {
			return true
		}
		var info unix.Siginfo
		unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil)
		return true
	})
}
