package loginenv

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// totalAlloc is the bytes the test process allocated so far.
func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// A login shell whose rc file prints 64 MiB (`yes`) before the
// environment: Read keeps at most maxOutput of it, so what it allocates
// stays far below what the shell printed, and it says why it found no
// environment.
func TestReadOutputCapped(t *testing.T) {
	sh := fakeShell(t, `yes | head -c 67108864
eval "$2"
`)
	before := totalAlloc()
	_, err := Read(context.Background(), sh, time.Minute)
	grew := totalAlloc() - before
	if err == nil || !strings.Contains(err.Error(), "more than 1 MiB") {
		t.Errorf("error %v, want one about printing more than 1 MiB", err)
	}
	if grew > 16<<20 {
		t.Errorf("Read allocated %d MiB for a shell printing 64 MiB; the cap is 1 MiB", grew>>20)
	}
}

// A login shell that prints without end (`yes`) is stopped once it passed
// the cap, long before the timeout, and Read allocates about the cap.
func TestReadEndlessOutput(t *testing.T) {
	sh := fakeShell(t, "yes\n")
	before := totalAlloc()
	_, err := Read(context.Background(), sh, 10*time.Minute)
	grew := totalAlloc() - before
	if err == nil || !strings.Contains(err.Error(), "more than 1 MiB") {
		t.Errorf("error %v, want one about printing more than 1 MiB", err)
	}
	if grew > 16<<20 {
		t.Errorf("Read allocated %d MiB for an endless shell; the cap is 1 MiB", grew>>20)
	}
}

// Junk after the environment past the cap (a logout file printing on)
// still leaves the environment that was kept.
func TestReadJunkAfterEnvironment(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	sh := fakeShell(t, `eval "$2"
yes | head -c 8388608
`)
	vars, err := Read(context.Background(), sh, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if vars["PATH"] != "/usr/bin:/bin" {
		t.Errorf("PATH = %q", vars["PATH"])
	}
}
