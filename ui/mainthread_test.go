package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// Fyne's test driver runs an fyne.Do function at once on the caller's
// goroutine, as Fyne's real driver does once its loop has ended: onMain
// runs it there only while no loop has claimed another goroutine.
func TestOnMainDropsWhatWouldRunOffTheLoop(t *testing.T) {
	test.NewTempApp(t)
	t.Cleanup(func() { mainGoroutine.Store(0) })

	ran := 0
	onMain(func() { ran++ })
	if ran != 1 {
		t.Fatalf("no loop: ran %d times, want 1", ran)
	}

	mainGoroutine.Store(goroutineID()) // this goroutine is the loop's
	onMain(func() { ran++ })
	if ran != 2 {
		t.Fatalf("on the loop's goroutine: ran %d times, want 2", ran)
	}

	mainGoroutine.Store(goroutineID() + 1) // the loop is another goroutine's
	onMain(func() { ran++ })
	if ran != 2 {
		t.Fatal("a function run off the loop's goroutine was not dropped")
	}
}

func TestGoroutineID(t *testing.T) {
	here := goroutineID()
	if here == 0 {
		t.Fatal("goroutineID read 0")
	}
	other := make(chan uint64)
	go func() { other <- goroutineID() }()
	if o := <-other; o == here || o == 0 {
		t.Errorf("another goroutine's id %d, this one's %d", o, here)
	}
	if again := goroutineID(); again != here {
		t.Errorf("id changed from %d to %d", here, again)
	}
}

// TestLoopGate: once the app has begun to quit, onMain and the dozer
// queue nothing for Fyne; onMainLast queues the quit itself, once.
func TestLoopGate(t *testing.T) {
	test.NewTempApp(t)
	t.Cleanup(openLoopGate)

	ran := 0
	onMain(func() { ran++ })
	if ran != 1 {
		t.Fatalf("gate open: ran %d times, want 1", ran)
	}
	closeLoopGate()
	onMain(func() { ran++ })
	if queueOnMain(func() { ran++ }) || ran != 1 {
		t.Fatalf("gate closed: something was queued (ran %d times)", ran)
	}
	onMainLast(func() { ran++ })
	if ran != 1 {
		t.Fatal("onMainLast queued after the gate closed")
	}

	openLoopGate()
	quits := 0
	onMainLast(func() { quits++ })
	onMainLast(func() { quits++ })
	onMain(func() { ran++ })
	if quits != 1 || ran != 1 {
		t.Errorf("onMainLast: quit ran %d times (want 1), then onMain ran %d more (want 0)", quits, ran-1)
	}
}

// TestOnMainLastRunsTheQuitOnce: the quit, which closes the gate itself,
// runs at once when Fyne runs it at once (its loop has ended): no
// deadlock on the gate.
func TestOnMainLastRunsTheQuitOnce(t *testing.T) {
	test.NewTempApp(t)
	t.Cleanup(openLoopGate)
	quits := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		onMainLast(func() { closeLoopGate(); quits++ })
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("onMainLast with a quit that closes the gate did not return")
	}
	if quits != 1 {
		t.Errorf("quit ran %d times, want 1", quits)
	}
}
