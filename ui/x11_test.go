//go:build linux

package ui

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// closeWindow asks X window win (an id as xdotool prints it) to close the
// way a window manager's close button does: a WM_DELETE_WINDOW client
// message. The session has no window manager, and xdotool's windowclose
// destroys the window instead, so this speaks the X11 protocol itself:
// connection setup, two InternAtom requests and a SendEvent.
func closeWindow(t testing.TB, win string) {
	t.Helper()
	id, err := strconv.ParseUint(win, 10, 32)
	if err != nil {
		t.Fatalf("window id %q: %v", win, err)
	}
	display := strings.TrimPrefix(os.Getenv("DISPLAY"), ":")
	display, _, _ = strings.Cut(display, ".")
	conn, err := net.Dial("unix", "/tmp/.X11-unix/X"+display)
	if err != nil {
		t.Fatalf("connecting to the X server: %v", err)
	}
	defer conn.Close()
	if err := x11Setup(conn); err != nil {
		t.Fatalf("X11 setup: %v", err)
	}
	protocols, err := x11Atom(conn, "WM_PROTOCOLS")
	if err != nil {
		t.Fatal(err)
	}
	deleteWindow, err := x11Atom(conn, "WM_DELETE_WINDOW")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	ev := make([]byte, 32) // ClientMessage, format 32
	ev[0], ev[1] = 33, 32
	le.PutUint32(ev[4:], uint32(id))
	le.PutUint32(ev[8:], protocols)
	le.PutUint32(ev[12:], deleteWindow)
	req := make([]byte, 12, 44) // SendEvent: propagate false, no event mask
	req[0] = 25
	le.PutUint16(req[2:], 11)
	le.PutUint32(req[4:], uint32(id))
	req = append(req, ev...)
	if _, err := conn.Write(req); err != nil {
		t.Fatalf("sending WM_DELETE_WINDOW: %v", err)
	}
	// A round trip, so the event is delivered before we return.
	if _, err := x11Atom(conn, "WM_PROTOCOLS"); err != nil {
		t.Fatal(err)
	}
}

// x11Setup sends the connection setup (little-endian, protocol 11.0, no
// authorization) and reads the server's answer.
func x11Setup(c net.Conn) error {
	setup := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := c.Write(setup); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		return err
	}
	rest := make([]byte, 4*int(binary.LittleEndian.Uint16(head[6:])))
	if _, err := io.ReadFull(c, rest); err != nil {
		return err
	}
	if head[0] != 1 {
		return fmt.Errorf("the X server refused the connection: %s", rest[:min(int(head[1]), len(rest))])
	}
	return nil
}

// x11Atom interns name and returns its atom.
func x11Atom(c net.Conn, name string) (uint32, error) {
	pad := (4 - len(name)%4) % 4
	req := make([]byte, 8, 8+len(name)+pad)
	req[0] = 16 // InternAtom, only-if-exists false
	binary.LittleEndian.PutUint16(req[2:], uint16(2+(len(name)+pad)/4))
	binary.LittleEndian.PutUint16(req[4:], uint16(len(name)))
	req = append(req, name...)
	req = append(req, make([]byte, pad)...)
	if _, err := c.Write(req); err != nil {
		return 0, err
	}
	for {
		reply := make([]byte, 32)
		if _, err := io.ReadFull(c, reply); err != nil {
			return 0, fmt.Errorf("interning %s: %w", name, err)
		}
		switch reply[0] {
		case 1: // reply
			if n := binary.LittleEndian.Uint32(reply[4:]); n > 0 {
				io.ReadFull(c, make([]byte, 4*n))
			}
			return binary.LittleEndian.Uint32(reply[8:]), nil
		case 0:
			return 0, fmt.Errorf("interning %s: X error %d", name, reply[1])
		}
		// an event: skip it
	}
}
