package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"time"
)

// memstatsEnv names a directory in which each long-running mcptray
// process (memstatsCommands) keeps DIR/COMMAND-PID.json up to date with
// its Go runtime's memory readings (runtime/metrics), written at start
// and every memstatsEvery, for benchmarks that read a real binary's Go
// heap from outside (ui's BenchmarkTrayMemory; docs/performance.md).
// Unset: nothing is written.
const memstatsEnv = "MCPTRAY_MEMSTATS"

// memstatsCommands are the commands that write memstatsEnv's files: the
// processes that stay up and whose memory the person pays for — the tray
// app, the daemon, and the short-lived window and popup processes of the
// tray app (once they exist; a command not in this build is refused
// before its file would say anything).
var memstatsCommands = map[string]bool{"run": true, "daemon": true, "window": true, "popup": true}

// memstatsEvery is how often the file is rewritten.
const memstatsEvery = time.Second

// memstatsMetrics are the readings written: every memory class (they sum
// to /memory/classes/total:bytes, all the memory the Go runtime mapped),
// the live heap, and the goroutines.
var memstatsMetrics = func() []string {
	names := []string{"/gc/heap/live:bytes", "/sched/goroutines:goroutines"}
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") {
			names = append(names, d.Name)
		}
	}
	return names
}()

// memstatsFile is what memstatsEnv's files hold.
type memstatsFile struct {
	Command string            `json:"command"`
	PID     int               `json:"pid"`
	Time    time.Time         `json:"time"`
	Metrics map[string]uint64 `json:"metrics"` // by runtime/metrics name
}

// startMemstats starts writing the file memstatsEnv asks for, if any and
// if command is one of memstatsCommands, and returns what stops it. A
// file that cannot be written is reported once on stderr and the command
// runs without it.
func startMemstats(command string) (stop func()) {
	dir := os.Getenv(memstatsEnv)
	if dir == "" || !memstatsCommands[command] {
		return func() {}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.json", command, os.Getpid()))
	samples := make([]metrics.Sample, len(memstatsMetrics))
	for i, name := range memstatsMetrics {
		samples[i].Name = name
	}
	write := func() error {
		metrics.Read(samples)
		f := memstatsFile{Command: command, PID: os.Getpid(), Time: time.Now(), Metrics: map[string]uint64{}}
		for _, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				f.Metrics[s.Name] = s.Value.Uint64()
			}
		}
		b, _ := json.Marshal(f)
		// Through a temp file and a rename: a reader never sees half.
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	if err := write(); err != nil {
		fmt.Fprintf(os.Stderr, "mcptray: %s: %v\n", memstatsEnv, err)
		return func() {}
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(memstatsEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if err := write(); err != nil {
					fmt.Fprintf(os.Stderr, "mcptray: %s: %v\n", memstatsEnv, err)
					return
				}
			}
		}
	}()
	return func() { close(done); <-ended }
}
