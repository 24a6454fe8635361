package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/control"
)

func TestConfigBannerFollowsUpdates(t *testing.T) {
	m, _, rec := showMain(t, &fakeCore{}, twoServers())
	if m.banner.root.Visible() {
		t.Fatal("banner shown with no config error")
	}

	updates := make(chan control.Status)
	applied := make(chan control.Status)
	stop := follow(updates, func(st control.Status) {
		m.apply(st)
		applied <- st
	})
	defer stop()
	send := func(st control.Status) {
		t.Helper()
		updates <- st
		select {
		case <-applied:
		case <-time.After(10 * time.Second):
			t.Fatal("update not applied within 10s")
		}
	}

	bad := twoServers()
	bad.ConfigError = "mcp.json:3:14: invalid character '}' looking for beginning of value"
	send(bad)
	if !m.banner.root.Visible() {
		t.Fatal("banner hidden after a config error")
	}
	if got := m.banner.detail.Text; got != bad.ConfigError {
		t.Errorf("banner detail = %q, want %q", got, bad.ConfigError)
	}
	if got := m.banner.title.Text; !strings.Contains(got, bad.ConfigPath) || !strings.Contains(got, "last good config keeps running") {
		t.Errorf("banner title = %q, want the path and that the last good config keeps running", got)
	}

	test.Tap(m.banner.open)
	if len(rec.opened) != 1 || rec.opened[0] != bad.ConfigPath {
		t.Errorf("Open config opened %q, want [%q]", rec.opened, bad.ConfigPath)
	}

	send(twoServers())
	if m.banner.root.Visible() {
		t.Error("banner still shown after the config error cleared")
	}
}

func TestFollowStopsApplying(t *testing.T) {
	updates := make(chan control.Status, 1)
	applied := make(chan struct{}, 10)
	stop := follow(updates, func(control.Status) { applied <- struct{}{} })
	stop()
	stop() // a second stop is harmless
	updates <- twoServers()
	select {
	case <-applied:
		t.Error("apply called after stop")
	default:
	}
}

func TestFollowEndsWhenUpdatesClose(t *testing.T) {
	updates := make(chan control.Status)
	stop := follow(updates, func(control.Status) {})
	close(updates)
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not return after the updates channel closed")
	}
}
