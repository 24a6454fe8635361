package keyring

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	gokeyring "github.com/zalando/go-keyring"
)

func TestEmptyName(t *testing.T) {
	_, err := Get("")
	for _, err := range []error{err, Set("", "v"), Delete("")} {
		if err == nil || err.Error() != "keyring entry name is empty" {
			t.Errorf("error: %v, want \"keyring entry name is empty\"", err)
		}
	}
}

func TestClassifySentinels(t *testing.T) {
	for _, tc := range []struct {
		in   error
		want error
		msg  string
	}{
		{gokeyring.ErrNotFound, ErrNotFound, "not found in the keyring"},
		{gokeyring.ErrSetDataTooBig, ErrTooLarge, "the value is too large for the keyring"},
	} {
		got := classify(tc.in, "")
		if !errors.Is(got, tc.want) || got.Error() != tc.msg {
			t.Errorf("classify(%v) = %v, want %q", tc.in, got, tc.msg)
		}
		if errors.Is(got, ErrUnavailable) {
			t.Errorf("classify(%v) matches ErrUnavailable", tc.in)
		}
	}
}

func TestUnavailableErrorChain(t *testing.T) {
	detail := errors.New("dial unix /x: no such file")
	err := fmt.Errorf("reading %q: %w", "n", &UnavailableError{Reason: "no bus", Err: detail})
	if err.Error() != `reading "n": no bus` {
		t.Errorf("message %q carries the detail", err)
	}
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, detail) {
		t.Error("ErrUnavailable or the detail is not reachable with errors.Is")
	}
}

// An underlying error that quotes the value being stored is replaced.
func TestClassifyWithholdsValue(t *testing.T) {
	const value = "hunter2-secret"
	in := fmt.Errorf("the service choked on %q", value)
	got := classify(in, value)
	if strings.Contains(fmt.Sprintf("%v %+v %#v", got, got, got), value) {
		t.Fatal("the classified error holds the value")
	}
	for e := got; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), value) {
			t.Fatal("the error chain holds the value")
		}
	}
	if got.Error() != "keyring error withheld: its text contained the secret value" {
		t.Errorf("message: %v", got)
	}
}
