package packaging

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// installed lists the files (not folders) under root, relative to it.
func installed(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return nil
	})
	slices.Sort(files)
	return files
}

// run runs install.sh with args, the binaries and icon given by env.
func run(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"install.sh"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// install puts the two binaries side by side, the desktop entry and the
// icon under PREFIX (staged under DESTDIR); uninstall removes exactly them.
func TestInstallUninstall(t *testing.T) {
	src := t.TempDir()
	for _, name := range []string{"mcptray", "mcptray-google"} {
		os.WriteFile(filepath.Join(src, name), []byte("#!/bin/sh\necho "+name+"\n"), 0o700)
	}
	env := []string{
		"MCPTRAY_BIN=" + filepath.Join(src, "mcptray"),
		"MCPTRAY_GOOGLE_BIN=" + filepath.Join(src, "mcptray-google"),
		"MCPTRAY_ICON=../assets/icon.png",
		"PREFIX=", "DESTDIR=",
	}
	root := t.TempDir()
	// Someone else's file in the same folders stays.
	os.MkdirAll(filepath.Join(root, "usr/local/bin"), 0o755)
	os.WriteFile(filepath.Join(root, "usr/local/bin/other"), nil, 0o755)

	run(t, env, "install", "--prefix", "/usr/local", "--destdir", root)
	want := []string{
		"usr/local/bin/mcptray",
		"usr/local/bin/mcptray-google",
		"usr/local/bin/other",
		"usr/local/share/applications/io.github.mcptray.desktop",
		"usr/local/share/icons/hicolor/64x64/apps/io.github.mcptray.png",
	}
	if got := installed(t, root); !slices.Equal(got, want) {
		t.Fatalf("installed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bin := range want[:2] {
		if fi, _ := os.Stat(filepath.Join(root, bin)); fi.Mode().Perm() != 0o755 {
			t.Errorf("%s has mode %v", bin, fi.Mode())
		}
	}
	entry := filepath.Join(root, want[3])
	data, _ := os.ReadFile(entry)
	for _, line := range []string{"Exec=/usr/local/bin/mcptray", "Icon=io.github.mcptray", "Type=Application"} {
		if !strings.Contains(string(data), "\n"+line+"\n") {
			t.Errorf("the desktop entry lacks %s:\n%s", line, data)
		}
	}
	validate(t, entry)
	icon, _ := os.ReadFile(filepath.Join(root, want[4]))
	if orig, _ := os.ReadFile("../assets/icon.png"); !slices.Equal(icon, orig) {
		t.Error("the installed icon is not assets/icon.png")
	}

	// Installing again replaces the files in place.
	run(t, env, "install", "--prefix", "/usr/local", "--destdir", root)
	if got := installed(t, root); !slices.Equal(got, want) {
		t.Errorf("after a second install:\n%s", strings.Join(got, "\n"))
	}

	run(t, env, "uninstall", "--prefix", "/usr/local", "--destdir", root)
	if got := installed(t, root); !slices.Equal(got, []string{"usr/local/bin/other"}) {
		t.Errorf("after uninstall:\n%s", strings.Join(got, "\n"))
	}
	run(t, env, "uninstall", "--prefix", "/usr/local", "--destdir", root) // nothing left to remove: fine
}

// PREFIX from the environment (make install PREFIX=...), without DESTDIR.
func TestInstallPrefixFromEnv(t *testing.T) {
	src, prefix := t.TempDir(), filepath.Join(t.TempDir(), "my prefix")
	for _, name := range []string{"mcptray", "mcptray-google"} {
		os.WriteFile(filepath.Join(src, name), nil, 0o755)
	}
	env := []string{"MCPTRAY_BIN=" + filepath.Join(src, "mcptray"), "MCPTRAY_GOOGLE_BIN=" + filepath.Join(src, "mcptray-google"),
		"MCPTRAY_ICON=../assets/icon.png", "PREFIX=" + prefix, "DESTDIR="}
	run(t, env, "install")
	data, err := os.ReadFile(filepath.Join(prefix, "share/applications/io.github.mcptray.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `Exec="` + prefix + `/bin/mcptray"`; !strings.Contains(string(data), want) {
		t.Errorf("the desktop entry lacks %s:\n%s", want, data)
	}
	validate(t, filepath.Join(prefix, "share/applications/io.github.mcptray.desktop"))
	run(t, env, "uninstall")
	if got := installed(t, prefix); len(got) != 0 {
		t.Errorf("after uninstall: %v", got)
	}
}

// A missing binary stops the install before anything is copied.
func TestInstallMissingBinary(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command("sh", "install.sh", "install", "--prefix", "/usr", "--destdir", root)
	cmd.Env = append(os.Environ(), "MCPTRAY_BIN="+filepath.Join(root, "none"), "MCPTRAY_GOOGLE_BIN="+filepath.Join(root, "none"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "missing") {
		t.Errorf("install.sh with no binary: %v\n%s", err, out)
	}
	if got := installed(t, root); len(got) != 0 {
		t.Errorf("installed anyway: %v", got)
	}
}

// The autostart entry the .deb ships passes the validator too.
func TestAutostartEntryValid(t *testing.T) {
	p := filepath.Join(t.TempDir(), "io.github.mcptray.desktop")
	os.WriteFile(p, []byte(run(t, nil, "autostart-entry", "/usr/bin/mcptray")), 0o644)
	validate(t, p)
}

// validate runs desktop-file-validate (scripts/deps.sh installs it; CI
// must have it).
func validate(t *testing.T, path string) {
	t.Helper()
	if _, err := exec.LookPath("desktop-file-validate"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("desktop-file-validate is missing (apt: desktop-file-utils)")
		}
		t.Log("desktop-file-validate not found: entry not validated")
		return
	}
	if out, err := exec.Command("desktop-file-validate", path).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("desktop-file-validate %s: %v\n%s", path, err, out)
	}
}
