package downstream

// A Watchdog does nothing on Windows, and needs no process: each server
// runs in a Job Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE whose only
// handle mcptray holds (process_windows.go). When mcptray dies, however
// it dies, the system closes that handle and ends every server with all
// its descendants — what the Unix watchdog exists to do. The type keeps
// the API its callers use (app.Core.Run, StdioSpec.Watchdog).
type Watchdog struct{}

// StartWatchdog returns the do-nothing watchdog.
func StartWatchdog() (*Watchdog, error) { return &Watchdog{}, nil }

// PID is 0: there is no watchdog process.
func (w *Watchdog) PID() int { return 0 }

func (w *Watchdog) track(pgid int, marker string) {}

func (w *Watchdog) untrack(pgid int) {}

// Err is nil: there is nothing that could stop working.
func (w *Watchdog) Err() error { return nil }

// Close has nothing to end.
func (w *Watchdog) Close() error { return nil }

// RunWatchdogIfRequested returns at once: nothing starts a watchdog on
// Windows.
func RunWatchdogIfRequested() {}
