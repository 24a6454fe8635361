package ui

import (
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// follow is the one funnel from a core subscription (statuses, log lines, a
// clock) into Fyne: it starts a goroutine that applies every value received
// on updates with apply, inside fyne.Do (so apply runs on the Fyne main
// goroutine). stop ends the goroutine and waits for it; after stop returns,
// apply is never called again, even by an fyne.Do queued before. stop may be
// called more than once, from any goroutine.
func follow[T any](updates <-chan T, apply func(T)) (stop func()) {
	var stopped atomic.Bool // set by stop; checked by every queued apply
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-done:
				return
			case v, ok := <-updates:
				if !ok {
					return
				}
				fyne.Do(func() {
					if !stopped.Load() {
						apply(v)
					}
				})
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			stopped.Store(true)
			close(done)
			<-exited
		})
	}
}
