package app

import (
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// At its cap the listener leaves connections in the kernel's queue, says
// so once for the burst, takes the next one when a connection closes,
// says when the burst is over (the count at half the cap), and returns
// from a waiting Accept when closed.
func TestCapConns(t *testing.T) {
	t.Parallel()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs testkit.Buffer
	count := func(s string) int { return strings.Count(logs.String(), s) }
	ln := capConns(inner, 4, slog.New(slog.NewTextHandler(&logs, nil)), "test listener")
	accepted := make(chan net.Conn, 16)
	acceptErr := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			accepted <- c
		}
	}()
	dial := func(n int) {
		for range n {
			c, err := net.Dial("tcp", inner.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
		}
	}
	next := func(what string) net.Conn {
		t.Helper()
		select {
		case c := <-accepted:
			t.Cleanup(func() { c.Close() })
			return c
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: not accepted within 30s", what)
			return nil
		}
	}
	const full, below = "test listener at its connection cap", "test listener below its connection cap again"

	dial(6)
	var open []net.Conn
	for range 4 {
		open = append(open, next("within the cap"))
	}
	testkit.WaitFor(t, "the log line about the cap", func() bool { return count(full) == 1 })
	if len(accepted) != 0 {
		t.Fatal("a fifth connection was accepted at the cap of 4")
	}

	open[0].Close()
	open[0].Close() // a second Close frees nothing more
	open = append(open[1:], next("the fifth, once one closed"))
	open[0].Close()
	open = append(open[1:], next("the sixth"))
	if n := count(below); n != 0 {
		t.Errorf("the burst said over with %d connections open of 4", len(open))
	}
	// The Accept waiting for a connection holds a slot already: 1 open
	// and that one are half the cap.
	for _, c := range open[:3] {
		c.Close()
	}
	testkit.WaitFor(t, "the log line about the burst's end", func() bool { return count(below) == 1 })
	if n := count(full); n != 1 {
		t.Errorf("%d lines about the cap for one burst, want 1", n)
	}

	// Full again; Close ends the waiting Accept.
	dial(3)
	for range 2 {
		next("a new burst")
	}
	testkit.WaitFor(t, "the log line about the second burst", func() bool { return count(full) == 2 })
	ln.Close()
	select {
	case err := <-acceptErr:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Accept still waiting 30s after Close")
	}
}
