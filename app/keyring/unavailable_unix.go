//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package keyring

import (
	"errors"
	"io/fs"
	"net"
	"os/exec"
	"strings"

	dbus "github.com/godbus/dbus/v5"
)

// The reasons shown to a person when the Secret Service cannot be used.
const (
	reasonNoBus = "no session D-Bus, which the keyring needs: run mcptray inside a desktop session " +
		"(DBUS_SESSION_BUS_ADDRESS is unset or points nowhere)"
	reasonNoService = "no Secret Service on the session D-Bus: start gnome-keyring " +
		"(or another Secret Service) and unlock it"
	reasonLocked = "the keyring is locked: unlock the default (login) keyring, " +
		"for example in Seahorse, and try again"
	reasonNoReply = "the Secret Service on the session D-Bus does not answer: " +
		"restart gnome-keyring (or your Secret Service)"
	reasonRefused = "the Secret Service refused the request: "
)

// unavailableReason says, for an error from go-keyring's Secret Service
// provider, whether it means the keyring cannot be used, and why.
func unavailableReason(err error) (string, bool) {
	if de, ok := asDBusError(err); ok {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown",
			"org.freedesktop.DBus.Error.NameHasNoOwner":
			return reasonNoService, true
		case "org.freedesktop.DBus.Error.NoReply",
			"org.freedesktop.DBus.Error.Timeout",
			"org.freedesktop.DBus.Error.TimedOut":
			return reasonNoReply, true
		case "org.freedesktop.Secret.Error.IsLocked":
			return reasonLocked, true
		}
		if strings.HasPrefix(de.Name, "org.freedesktop.DBus.Error.Spawn.") {
			// Activation of org.freedesktop.secrets failed.
			return reasonNoService, true
		}
		return reasonRefused + oneLine(de.Error()), true
	}
	// go-keyring's own message when Unlock does not unlock the collection
	// (a locked keyring whose prompt was dismissed or could not be shown).
	if strings.Contains(err.Error(), "failed to unlock") {
		return reasonLocked, true
	}
	// Errors from finding and dialling the session bus: no address and no
	// dbus-launch, an address that points nowhere, a malformed address, a
	// refused authentication, a dropped connection.
	var (
		netErr  net.Error
		execErr *exec.Error
		pathErr *fs.PathError
	)
	if errors.As(err, &netErr) || errors.As(err, &execErr) || errors.As(err, &pathErr) ||
		errors.Is(err, dbus.ErrClosed) || strings.HasPrefix(err.Error(), "dbus: ") {
		return reasonNoBus, true
	}
	return "", false
}

func asDBusError(err error) (dbus.Error, bool) {
	var v dbus.Error
	if errors.As(err, &v) {
		return v, true
	}
	var p *dbus.Error
	if errors.As(err, &p) && p != nil {
		return *p, true
	}
	return dbus.Error{}, false
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}
