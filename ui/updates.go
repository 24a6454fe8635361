package ui

import (
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/app"
)

// follow is the one funnel from a core subscription into Fyne: it starts a
// goroutine that applies every status received on updates with apply, inside
// fyne.Do (so apply runs on the Fyne main goroutine). stop ends the goroutine
// and waits for it; after stop returns, apply is never called again, even by
// an fyne.Do queued before. stop may be called more than once.
func follow(updates <-chan app.Status, apply func(app.Status)) (stop func()) {
	var stopped atomic.Bool // set by stop; checked by every queued apply
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-done:
				return
			case st, ok := <-updates:
				if !ok {
					return
				}
				fyne.Do(func() {
					if !stopped.Load() {
						apply(st)
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
