package ui

import (
	"sync"
	"sync/atomic"
)

// follow is the one funnel from a core subscription (statuses, log lines, a
// clock) into Fyne: it starts a goroutine that applies every value received
// on updates with apply, through onMain (so apply runs on the Fyne main
// goroutine, and never once Fyne's loop has ended). stop ends the goroutine
// and waits for it; after stop returns, apply is never called again, even
// by an onMain queued before. stop may be called more than once, from any
// goroutine.
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
				onMain(func() {
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

// followLoad is follow for subscriptions that only say "something
// changed": on each change (and every change queued behind it, taken at
// once) a goroutine calls load — off the main goroutine, so a slow read
// never stalls the UI — and its result is applied through onMain. stop is
// as for follow (it waits for a load under way).
func followLoad[T, U any](changes <-chan T, load func() U, apply func(U)) (stop func()) {
	loaded := make(chan U)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-done:
				return
			case _, ok := <-changes:
				if !ok {
					return
				}
			}
		drain:
			for {
				select {
				case _, ok := <-changes:
					if !ok {
						break drain
					}
				default:
					break drain
				}
			}
			select {
			case loaded <- load():
			case <-done:
				return
			}
		}
	}()
	stopApply := follow(loaded, apply)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-exited
			stopApply()
		})
	}
}
