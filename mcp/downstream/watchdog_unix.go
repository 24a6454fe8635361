//go:build unix

package downstream

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/mcp/exitwait"
)

// A Watchdog is a small helper process (mcptray re-executed with
// MCPTRAY_WATCHDOG=1) that kills every tracked server process group when
// mcptray dies, even by SIGKILL, grandchildren included. It learns of the
// death by EOF on its stdin (a pipe only mcptray holds) and, on Linux, by
// SIGTERM as its parent-death signal.
//
// Protocol on its stdin, one per line: "+PGID MARKER" tracks a group and
// the serverEnv=… entry of its server, "-PGID" forgets them. At EOF or
// SIGTERM it sends SIGKILL to every tracked group, then (Linux) to every
// process whose environment holds a tracked marker — the descendants
// that left their group with setsid(), whose parent links to the server
// died with mcptray — and exits.
type Watchdog struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the watchdog process has been reaped

	mu     sync.Mutex // guards w, closed and werr; serialises lines on the pipe
	w      *os.File   // the watchdog's stdin
	closed bool
	werr   error // the first failed write
}

// StartWatchdog starts this instance's watchdog.
func StartWatchdog() (*Watchdog, error) {
	exe, err := selfExecutable()
	if err != nil {
		return nil, fmt.Errorf("starting watchdog: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting watchdog: %w", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		closeFiles(r, w)
		return nil, fmt.Errorf("starting watchdog: %w", err)
	}
	cmd := &exec.Cmd{
		Path:        exe,
		Args:        []string{"mcptray-watchdog"},
		Env:         append(os.Environ(), WatchdogEnv+"=1"),
		Stdin:       r,
		Stdout:      readyW,
		Stderr:      os.Stderr,
		SysProcAttr: watchdogProcAttr(),
	}
	err = startOwned(cmd)
	closeFiles(r, readyW)
	if err != nil {
		closeFiles(w, readyR)
		return nil, fmt.Errorf("starting watchdog: %w", err)
	}
	wd := &Watchdog{cmd: cmd, w: w, exited: make(chan struct{})}
	go func() {
		exitwait.Wait(cmd)
		disown(cmd.Process.Pid)
		close(wd.exited)
	}()

	// Until it has its SIGTERM handler, the watchdog would die of our death
	// without killing anything: wait until it says it is ready.
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(readyR).ReadString('\n')
		readyR.Close()
		ready <- line == watchdogReady+"\n"
	}()
	select {
	case ok := <-ready:
		if ok {
			return wd, nil
		}
	case <-time.After(10 * time.Second):
	}
	cmd.Process.Kill()
	<-wd.exited
	w.Close()
	return nil, fmt.Errorf("starting watchdog: no ready signal (%s)", cmd.ProcessState)
}

// watchdogReady is the line the watchdog prints on stdout once it runs.
const watchdogReady = "mcptray-watchdog ready"

// PID is the watchdog process's id.
func (w *Watchdog) PID() int { return w.cmd.Process.Pid }

// track asks the watchdog to kill process group pgid, and every process
// carrying marker (a KEY=VALUE environment entry, no spaces; "" for none),
// if mcptray dies.
func (w *Watchdog) track(pgid int, marker string) { w.send('+', pgid, marker) }

// untrack forgets pgid and its marker (their processes are gone).
func (w *Watchdog) untrack(pgid int) { w.send('-', pgid, "") }

func (w *Watchdog) send(op byte, pgid int, marker string) {
	if w == nil || pgid <= 1 {
		return
	}
	if strings.ContainsAny(marker, " \n") {
		marker = "" // not one of ours; the group is still tracked
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.werr != nil {
		return
	}
	line := fmt.Sprintf("%c%d", op, pgid)
	if marker != "" {
		line += " " + marker
	}
	if _, err := fmt.Fprintln(w.w, line); err != nil {
		w.werr = err
	}
}

// Err reports a watchdog that is no longer working: it exited before Close,
// or a write to it failed.
func (w *Watchdog) Err() error {
	w.mu.Lock()
	werr, closed := w.werr, w.closed
	w.mu.Unlock()
	if werr != nil {
		return fmt.Errorf("watchdog: %w", werr)
	}
	select {
	case <-w.exited:
		if !closed {
			return fmt.Errorf("watchdog exited: %s", w.cmd.ProcessState)
		}
	default:
	}
	return nil
}

// Close ends the watchdog the same way mcptray's death would: it kills
// whatever is still tracked (normally nothing, since every Session untracks
// its group once the group is gone) and exits. Close waits for it.
func (w *Watchdog) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		w.w.Close()
	}
	w.mu.Unlock()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.cmd.Process.Kill()
		<-w.exited
	}
	if st := w.cmd.ProcessState; st != nil && !st.Success() {
		return fmt.Errorf("watchdog: %s", st)
	}
	return nil
}

// RunWatchdogIfRequested runs the watchdog and exits when this process was
// started as one (MCPTRAY_WATCHDOG=1); otherwise it returns at once. Call it
// first thing in main, and in every TestMain whose tests start servers with
// a Watchdog.
func RunWatchdogIfRequested() {
	if os.Getenv(WatchdogEnv) != "1" {
		return
	}
	ReleaseHugeCodeMappings()
	os.Exit(runWatchdog(os.Stdin))
}

// runWatchdog is the watchdog's main loop.
func runWatchdog(in io.Reader) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	fmt.Fprintln(os.Stdout, watchdogReady)
	os.Stdout.Close()

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()

	groups := map[int]string{} // pgid → its server's marker
	apply := func(line string) {
		if len(line) < 2 {
			return
		}
		num, marker, _ := strings.Cut(strings.TrimSpace(line[1:]), " ")
		pgid, err := strconv.Atoi(num)
		if err != nil || pgid <= 1 {
			return
		}
		switch line[0] {
		case '+':
			groups[pgid] = marker
		case '-':
			delete(groups, pgid)
		}
	}
	killAll := func() {
		var markers [][]byte
		for pgid, marker := range groups {
			syscall.Kill(-pgid, syscall.SIGKILL)
			if marker != "" {
				markers = append(markers, []byte(marker))
			}
		}
		killMarked(markers, 2*time.Second)
	}

	for {
		select {
		case line, ok := <-lines:
			if !ok {
				killAll()
				return 0
			}
			apply(line)
		case <-term:
			// mcptray died. Lines it wrote just before are still in the
			// pipe: read them (EOF follows at once) so no group is missed.
			deadline := time.After(time.Second)
			for {
				select {
				case line, ok := <-lines:
					if ok {
						apply(line)
						continue
					}
				case <-deadline:
				}
				break
			}
			killAll()
			return 0
		}
	}
}
