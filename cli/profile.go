package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// profileEnv names a directory in which each long-running command (run,
// daemon, connect, serve) writes a CPU profile of its whole run,
// COMMAND-PID.pprof, for `go tool pprof` (see docs/performance.md). Unset:
// no profile.
const profileEnv = "MCPTRAY_CPUPROFILE"

// startProfile starts the CPU profile profileEnv asks for, if any, and
// returns what stops it; a profile that cannot start is reported on
// stderr and the command runs without it.
func startProfile(command string) (stop func()) {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", command, os.Getpid())))
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcptray: %s: %v\n", profileEnv, err)
		if f != nil {
			f.Close()
		}
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
