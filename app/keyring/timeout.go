package keyring

import (
	"fmt"
	"time"
)

// Timeout bounds a call to the keyring that must not hang: a locked
// keyring may wait for an unlock prompt nobody answers, and a reload or a
// command must go on without it.
const Timeout = 30 * time.Second

// WithTimeout runs f, giving up after d with an error saying the keyring
// did not answer. f goes on in its own goroutine until it returns; its
// result is then dropped.
func WithTimeout(d time.Duration, f func() (string, error)) (string, error) {
	type result struct {
		v   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-time.After(d):
		return "", fmt.Errorf("the keyring did not answer within %s (is it locked?)", d)
	}
}
