package app

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestWindowsInstanceLock: the data dir's lock (LockFileEx) refuses a
// second holder at once, with the holder's pid, and is free again once
// released.
func TestWindowsInstanceLock(t *testing.T) {
	data := testkit.TempDir(t)
	l, err := lockInstance(data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockInstance(data)
	if !errors.Is(err, ErrAlreadyRunning) || !strings.Contains(err.Error(), fmt.Sprintf("(pid %d, data dir %s, socket \\\\.\\pipe\\mcptray-", os.Getpid(), data)) {
		t.Errorf("a second lock = %v, want ErrAlreadyRunning with this pid and the pipe", err)
	}
	l.release()
	l, err = lockInstance(data)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l.release()
}
