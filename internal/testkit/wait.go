package testkit

import (
	"testing"
	"time"
)

// Deadline is how long WaitFor waits: generous, since the machines that
// run the tests are shared and loaded. A condition that holds returns at
// once; only a broken test waits this long.
const Deadline = 30 * time.Second

// WaitFor looks at its condition after firstPoll, then less often, up to
// every maxPoll (a condition may be a status request to a daemon, and the
// machine is shared).
const (
	firstPoll = 5 * time.Millisecond
	maxPoll   = 50 * time.Millisecond
)

// WaitFor polls cond until it holds and fails t with "timed out waiting
// for <what>" if it does not within Deadline.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	WaitForWithin(t, Deadline, what, cond)
}

// WaitForWithin is WaitFor with a deadline of d, for a test that checks
// something happens within a time the code promises.
func WaitForWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Eventually(d, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// Eventually polls cond until it holds (true) or d passes (false), for a
// caller that says more than WaitFor does when it fails.
func Eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for wait := firstPoll; ; wait = min(2*wait, maxPoll) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
	}
}

// Within runs f and fails t with "<what> blocked" if f has not returned
// within d.
func Within(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s blocked", what)
	}
}
