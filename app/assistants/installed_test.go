package assistants

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstalledExecutable(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A checkout with a build in bin/, and two install folders.
	checkout := filepath.Join(root, "src", "mcptray")
	os.MkdirAll(filepath.Join(checkout, "bin"), 0o755)
	os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module github.com/mcptray/mcptray\n\ngo 1.26\n"), 0o644)
	build := filepath.Join(checkout, "bin", "mcptray")
	local, usr := filepath.Join(root, "home", ".local", "bin"), filepath.Join(root, "usr", "bin")
	dirs := []string{local, usr}
	for _, d := range dirs {
		os.MkdirAll(d, 0o755)
	}
	exe := func(p string) string {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe(build)
	notOnPath := func(string) (string, error) { return "", errors.New("not found") }

	if p, ok := installedExecutable(build, dirs, "", notOnPath); p != build || ok {
		t.Errorf("a checkout build with nothing installed: %q, %v; want itself, false", p, ok)
	}
	exe(filepath.Join(usr, "mcptray"))
	if p, ok := installedExecutable(build, dirs, "", notOnPath); p != filepath.Join(usr, "mcptray") || !ok {
		t.Errorf("with /usr/bin's: %q, %v", p, ok)
	}
	exe(filepath.Join(local, "mcptray"))
	if p, _ := installedExecutable(build, dirs, "", notOnPath); p != filepath.Join(local, "mcptray") {
		t.Errorf("with ~/.local/bin's too, not on PATH: %q, want the first of the list", p)
	}
	onPath := func(string) (string, error) { return filepath.Join(usr, "mcptray"), nil }
	if p, _ := installedExecutable(build, dirs, "", onPath); p != filepath.Join(usr, "mcptray") {
		t.Errorf("PATH finds /usr/bin's first: %q", p)
	}
	// Found on PATH elsewhere: not an install folder, so not taken.
	elsewhere := func(string) (string, error) { return filepath.Join(checkout, "bin", "mcptray"), nil }
	if p, _ := installedExecutable(build, dirs, "", elsewhere); p != filepath.Join(local, "mcptray") {
		t.Errorf("PATH finds the checkout's: %q", p)
	}
	// An mcptray that is not a checkout build (say /opt/mcptray) names itself.
	opt := filepath.Join(root, "opt", "mcptray")
	os.MkdirAll(filepath.Dir(opt), 0o755)
	if p, ok := installedExecutable(exe(opt), dirs, "", onPath); p != opt || !ok {
		t.Errorf("an installed one running: %q, %v", p, ok)
	}
}

func TestInCheckout(t *testing.T) {
	t.Parallel()
	// This test binary runs from go test's temporary folder (unless
	// GOTMPDIR put it elsewhere).
	if self, _ := os.Executable(); strings.HasPrefix(self, os.TempDir()+string(filepath.Separator)) && !inCheckout(self, os.TempDir()) {
		t.Errorf("%s (go test's build) is not taken for a checkout build", self)
	}
	if !inCheckout("/tmp/go-build123/b001/exe/mcptray", "/tmp") {
		t.Error("a go run build is not taken for a checkout build")
	}
	if inCheckout("/usr/bin/mcptray", os.TempDir()) {
		t.Error("/usr/bin/mcptray is taken for a checkout build")
	}
}
