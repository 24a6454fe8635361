package downstream

import (
	"os"
	"os/user"
	"strings"
	"testing"
)

// TestReleaseHugeCodeMappings: after the call the binary's read-only
// mappings are marked no-huge-page and none is PMD-mapped, and the program
// still runs — code, read-only data and the dynamic linker's relocated
// tables (a cgo call goes through them) alike.
func TestReleaseHugeCodeMappings(t *testing.T) {
	ReleaseHugeCodeMappings()
	if _, err := user.Current(); err != nil { // cgo's getpwuid_r when cgo is on
		t.Fatal(err)
	}
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skip(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	ours, marked := false, 0
	var inExe, readOnly bool
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			inExe = len(f) >= 6 && f[5] == exe
			readOnly = inExe && !strings.Contains(f[1], "w")
			ours = ours || inExe
		case inExe && len(f) >= 2 && f[0] == "FilePmdMapped:" && f[1] != "0":
			t.Errorf("a mapping of the binary is still PMD-mapped: %s", line)
		case readOnly && f != nil && f[0] == "VmFlags:" && strings.Contains(line, " nh"):
			marked++
		}
	}
	if !ours {
		t.Skip("the binary does not appear in smaps")
	}
	if marked == 0 {
		t.Error("no read-only mapping of the binary is marked nohugepage")
	}
}
