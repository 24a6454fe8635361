package ui

import (
	"testing"

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
