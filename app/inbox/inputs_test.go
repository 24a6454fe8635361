package inbox

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/mcptray/mcptray/store"
)

// Many servers waiting for one input share one question: ask runs once,
// every waiter gets its outcome, and a waiter whose context ends gets
// cancel while the question goes on for the others. (synctest.Wait tells
// when every waiter is waiting.)
func TestInputsAskOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewInputs()
		var runs atomic.Int32
		release := make(chan struct{})
		ask := func(context.Context) string {
			runs.Add(1)
			<-release
			s.Set("token", "v", true)
			return store.OutcomeAccept
		}

		var wg sync.WaitGroup
		outcomes := make([]string, 5)
		for i := range outcomes {
			wg.Go(func() { outcomes[i] = s.Ask(context.Background(), "token", ask) })
		}
		synctest.Wait() // all five wait for the one question
		gone, leave := context.WithCancel(context.Background())
		leave()
		if got := s.Ask(gone, "token", ask); got != store.OutcomeCancel {
			t.Errorf("a waiter that left: %q, want cancel", got)
		}
		close(release)
		wg.Wait()
		for i, o := range outcomes {
			if o != store.OutcomeAccept {
				t.Errorf("waiter %d: %q", i, o)
			}
		}
		if n := runs.Load(); n != 1 {
			t.Errorf("asked %d times, want once", n)
		}
		if v, ok := s.Value("token"); !ok || v != "v" {
			t.Errorf("value %q %v after the answer", v, ok)
		}

		// Answered: the next ask is a new question.
		if got := s.Ask(context.Background(), "token", func(context.Context) string { return store.OutcomeDecline }); got != store.OutcomeDecline {
			t.Errorf("a second question: %q", got)
		}
	})
}

// Only password inputs are redacted; Forget drops a value and says
// whether there was one.
func TestInputsPasswordsAndForget(t *testing.T) {
	s := NewInputs()
	s.Set("user", "ada", false)
	s.Set("token", "tok-1", true)
	s.Set("key", "key-2", true)
	got := s.Passwords()
	slices.Sort(got)
	if !slices.Equal(got, []string{"key-2", "tok-1"}) {
		t.Errorf("passwords %q", got)
	}
	if !s.Forget("token") || s.Forget("token") {
		t.Error("Forget: want true, then false")
	}
	if _, ok := s.Value("token"); ok {
		t.Error("a forgotten value is still there")
	}
	if got := s.Passwords(); !slices.Equal(got, []string{"key-2"}) {
		t.Errorf("passwords after Forget %q", got)
	}
}
