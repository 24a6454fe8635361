package testkit

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestEventually(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	if !Eventually(time.Minute, func() bool { return n.Add(1) == 3 }) {
		t.Error("a condition that comes to hold: false")
	}
	if Eventually(30*time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never holds: true")
	}
}

func TestWaitForAndWithin(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	WaitFor(t, "the third look", func() bool { return n.Add(1) == 3 })
	ran := false
	Within(t, time.Minute, "a quick func", func() { ran = true })
	if !ran {
		t.Error("Within did not run f")
	}
}
