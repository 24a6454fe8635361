package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestWindowsDaemonLog: the daemon log rotates on Windows (close, rename,
// reopen: no open file is renamed), and the process's standard error,
// os.Stderr and the raw handle a panic's trace uses, follows it. The log
// takes over the process's stdio, so a child test process writes it.
func TestWindowsDaemonLog(t *testing.T) {
	if path := os.Getenv("MCPTRAY_TEST_DAEMON_LOG"); path != "" {
		writeDaemonLog(path)
		os.Exit(0)
	}
	path := filepath.Join(testkit.TempDir(t), "mcptray.log")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWindowsDaemonLog$")
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_DAEMON_LOG="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path + ".1")
	if err != nil {
		t.Fatalf("no rotated log: %v", err)
	}
	if len(cur) > 300 || len(old) > 300 {
		t.Errorf("a log past its 300 bytes: %d and %d", len(cur), len(old))
	}
	if !strings.HasSuffix(string(cur), "log line 19\nstderr line 19\nraw stderr last\n") {
		t.Errorf("the current log ends %q", cur)
	}
	if !strings.HasPrefix(string(old), "log line ") && !strings.HasPrefix(string(old), "stderr line ") && !strings.HasPrefix(string(old), "raw ") {
		t.Errorf("the rotated log starts %q", old)
	}
}

func writeDaemonLog(path string) {
	w, err := OpenDaemonLog(path, 300)
	if err != nil {
		panic(err)
	}
	for i := range 20 {
		fmt.Fprintf(w, "log line %02d\n", i)
		fmt.Fprintf(os.Stderr, "stderr line %02d\n", i)
	}
	h, err := windows.GetStdHandle(windows.STD_ERROR_HANDLE)
	if err != nil {
		panic(err)
	}
	var n uint32
	windows.WriteFile(h, []byte("raw stderr last\n"), &n, nil)
}
