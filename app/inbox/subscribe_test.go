package inbox

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// TestSubscribeWhileRequestsArrive: Subscribe returns while requests keep
// arriving. (It used to send its first wake-up blocking: a request
// published between its unlock and that send filled the one-slot wake,
// the subscriber's goroutine waited to hand that request to a caller who
// had not got the channel yet, and Subscribe never returned.)
func TestSubscribeWhileRequestsArrive(t *testing.T) {
	t.Parallel()
	ib := New(Options{Log: slog.New(slog.DiscardHandler)})
	var stop atomic.Bool
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for !stop.Load() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Microsecond)
				ib.Ask(ctx, Request{Server: "s", Mode: "form", Confirm: true}, "", time.Hour)
				cancel()
			}
		}()
	}
	subscribed := make(chan struct{})
	go func() {
		for range 3000 {
			_, cancel := ib.Subscribe()
			cancel()
		}
		close(subscribed)
	}()
	select {
	case <-subscribed:
	case <-time.After(time.Minute):
		t.Error("Subscribe hangs while requests arrive")
	}
	stop.Store(true)
	for range 4 {
		<-done
	}
}
