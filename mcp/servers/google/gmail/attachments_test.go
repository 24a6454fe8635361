package gmail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files to attach must lie inside the local roots, symlinks resolved.
func TestLocalRootsEnforced(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(home, "work"), 0o700))
	must(t, os.WriteFile(filepath.Join(home, "work", "a.txt"), []byte("a"), 0o600))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o600))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(home, "work", "link.txt")))
	must(t, os.Symlink(outside, filepath.Join(home, "work", "dirlink")))
	s := New(Options{Accounts: noAccountsYet{}, Home: home, LocalRoots: []string{filepath.Join(home, "work")}})

	files, err := s.loadAttachments([]string{filepath.Join(home, "work", "a.txt"), "~/work/a.txt"})
	if err != nil || len(files) != 2 || files[0].Name != "a.txt" || string(files[1].Data) != "a" || !strings.HasPrefix(files[0].Type, "text/plain") {
		t.Errorf("inside: %+v %v", files, err)
	}
	for _, p := range []string{
		filepath.Join(outside, "secret.txt"),
		filepath.Join(home, "work", "..", "..", filepath.Base(outside), "secret.txt"),
		filepath.Join(home, "work", "link.txt"),
		filepath.Join(home, "work", "dirlink", "secret.txt"),
		"~/other.txt",
	} {
		if _, err := s.loadAttachments([]string{p}); err == nil || !strings.Contains(err.Error(), "is outside the folders mcptray may read (x-mcptray.localRoots: "+filepath.Join(home, "work")+")") {
			t.Errorf("%s: %v", p, err)
		}
	}
	for p, want := range map[string]string{
		"work/a.txt":                          "must be an absolute path",
		filepath.Join(home, "work", "no.txt"): "does not exist",
		filepath.Join(home, "work"):           "is not a file",
	} {
		if _, err := s.loadAttachments([]string{p}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", p, err, want)
		}
	}
	none := New(Options{Accounts: noAccountsYet{}, Home: home, LocalRoots: []string{}})
	if _, err := none.loadAttachments([]string{filepath.Join(home, "work", "a.txt")}); err == nil {
		t.Error("an empty localRoots allows a file")
	}
}

// A download never overwrites: the second of a name gets "name (1).ext".
func TestSaveNeverOverwrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dl")
	s := New(Options{Accounts: noAccountsYet{}, Home: t.TempDir(), DownloadDir: dir})
	var paths []string
	for _, content := range []string{"one", "two", "three"} {
		p, err := s.save("report.pdf", []byte(content))
		must(t, err)
		paths = append(paths, p)
	}
	want := []string{"report.pdf", "report (1).pdf", "report (2).pdf"}
	for i, p := range paths {
		b, _ := os.ReadFile(p)
		if filepath.Dir(p) != dir || filepath.Base(p) != want[i] || string(b) != []string{"one", "two", "three"}[i] {
			t.Errorf("save %d: %s holds %q", i, p, b)
		}
	}
	p, err := s.save("../../escape", []byte("x"))
	if err != nil || filepath.Dir(p) != dir || filepath.Base(p) != "escape" {
		t.Errorf("a name with a path: %s %v", p, err)
	}
	if st, _ := os.Stat(paths[0]); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
}
