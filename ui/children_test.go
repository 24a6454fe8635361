package ui

import (
	"errors"
	"testing"
)

// A popup process that fails while a request waits is started again, at
// most maxPopupFailures times in a row (a popup that cannot show would
// otherwise start forever); one that ends well starts the count anew, and
// none starts when nothing waits.
func TestPopupEndedStartsAnotherForAWaitingRequest(t *testing.T) {
	waiting := true
	c := &children{pending: func() bool { return waiting }}
	failed := errors.New("exit status 66")
	for i := 1; i <= maxPopupFailures; i++ {
		if !c.popupEnded(failed) {
			t.Fatalf("failure %d with a request waiting: no new popup", i)
		}
	}
	if c.popupEnded(failed) {
		t.Fatalf("failure %d in a row: a new popup, want none", maxPopupFailures+1)
	}
	if !c.popupEnded(nil) {
		t.Fatal("a popup that ended well with a request waiting: no new popup")
	}
	if !c.popupEnded(failed) {
		t.Fatal("a failure after a popup that ended well: no new popup (the count did not start anew)")
	}
	waiting = false
	if c.popupEnded(nil) || c.popupEnded(failed) {
		t.Fatal("a new popup with nothing waiting")
	}
}
