package assistants

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// InstalledExecutable is the mcptray that the Assistants tab, the
// autostart entry and `mcptray setup` should name, and whether it is an
// installed one. The rule:
//
//  1. the running executable (symlinks resolved), when it is not a build
//     in a checkout: not under a folder whose go.mod is mcptray's module,
//     and not under the temporary folder (`go run`, `go test`);
//  2. else an installed mcptray (`make install`, the .deb, the tarball's
//     install.sh): of ~/.local/bin, /usr/local/bin and /usr/bin, the one
//     that PATH finds first, else the first of them that exists;
//  3. else the running executable (ok is false).
//
// A build in a checkout moves with every `make build` and goes with `make
// clean`: an assistant's config or a login item should outlive it.
func InstalledExecutable() (path string, ok bool) {
	self, err := os.Executable()
	if err != nil {
		self = ""
	} else if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	home, _ := os.UserHomeDir()
	return installedExecutable(self, installDirs(home), os.TempDir(), exec.LookPath)
}

// installDirs are where an installed mcptray is looked for, in order.
func installDirs(home string) []string {
	if runtime.GOOS == "windows" {
		return nil
	}
	var dirs []string
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".local", "bin"))
	}
	return append(dirs, "/usr/local/bin", "/usr/bin")
}

func installedExecutable(self string, dirs []string, tmp string, lookPath func(string) (string, error)) (string, bool) {
	if self != "" && !inCheckout(self, tmp) {
		return self, true
	}
	name := "mcptray"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if p, err := lookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			for _, d := range dirs {
				if filepath.Dir(abs) == d {
					return abs, true
				}
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return self, false
}

// inCheckout reports whether exe is a build in a checkout of mcptray (a
// folder above it has mcptray's go.mod) or a build of `go run` or `go
// test` (under the temporary folder tmp).
func inCheckout(exe, tmp string) bool {
	if tmp != "" && strings.HasPrefix(exe, filepath.Clean(tmp)+string(filepath.Separator)) {
		return true
	}
	for dir := filepath.Dir(exe); ; {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.Contains(data, []byte("module github.com/mcptray/mcptray\n")) {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
