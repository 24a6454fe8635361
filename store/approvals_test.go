package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestLaunchApprovals(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "mcptray.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	if err := s.ApproveLaunch(ctx, LaunchApproval{Server: "a", Fingerprint: "f1", Command: "npx -y a", Approved: at, How: ApprovedAtFirstStart}); err != nil {
		t.Fatal(err)
	}
	if err := s.ApproveLaunch(ctx, LaunchApproval{Server: "a", Fingerprint: "f2", Command: "npx -y b", Approved: at, How: ApprovedByPerson}); err != nil {
		t.Fatal(err)
	}
	if err := s.ApproveLaunch(ctx, LaunchApproval{Server: "b", Fingerprint: "f3", Approved: at, How: "someone"}); err == nil {
		t.Error("an unknown how was stored")
	}
	got, err := s.LaunchApprovals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a := got["a"]; len(got) != 1 || a.Fingerprint != "f2" || a.Command != "npx -y b" || a.How != ApprovedByPerson || !a.Approved.Equal(at) {
		t.Errorf("approvals %+v", got)
	}
	if _, ok, err := s.Flag(ctx, "x"); ok || err != nil {
		t.Errorf("unset flag: %t %v", ok, err)
	}
	s.SetFlag(ctx, "x", "1")
	if v, ok, err := s.Flag(ctx, "x"); !ok || v != "1" || err != nil {
		t.Errorf("flag: %q %t %v", v, ok, err)
	}
}

func TestToolPins(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "mcptray.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	if err := s.PinTools(ctx, "a", []ToolPin{{Tool: "x", Hash: "h1", Pinned: []byte(`{"name":"x"}`), Updated: at}, {Tool: "y", Hash: "h2", Pinned: []byte(`{}`), Updated: at}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PinTools(ctx, "a", []ToolPin{{Tool: "x", Hash: "h3", Pinned: []byte(`{"name":"x","description":"new"}`), Updated: at}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PinTools(ctx, "a", []ToolPin{{Tool: "z", Hash: "h", Pinned: []byte(`{`)}}); err == nil {
		t.Error("invalid JSON pinned")
	}
	pins, err := s.ToolPins(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(pins) != 2 || pins["x"].Hash != "h3" || string(pins["x"].Pinned) != `{"name":"x","description":"new"}` || !pins["y"].Updated.Equal(at) {
		t.Errorf("pins %+v", pins)
	}
	if other, _ := s.ToolPins(ctx, "b"); len(other) != 0 {
		t.Errorf("pins of another server: %+v", other)
	}
}
