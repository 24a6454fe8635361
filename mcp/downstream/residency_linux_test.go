package downstream

import (
	"encoding/binary"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
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

// TestReleaseKeepsOwnPages: in a private read-only mapping of a file
// where one page was written (as the dynamic linker's relocations are),
// releasePages drops the file's pages from the process and keeps the
// written one: its bytes stay, and the file's pages read back the file.
func TestReleaseKeepsOwnPages(t *testing.T) {
	page := os.Getpagesize()
	const pages = 8
	content := make([]byte, pages*page)
	for i := range content {
		content[i] = byte(i / page)
	}
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem, err := syscall.Mmap(int(f.Fd()), 0, len(content), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	sum := 0
	for i := 0; i < len(mem); i += page {
		sum += int(mem[i]) // every page resident, the file's
	}
	t.Logf("%d pages read (their bytes sum to %d)", pages, sum)
	const own = 3
	mem[own*page] = 0xAA // copy on write: this page is the process's now
	if err := syscall.Mprotect(mem, syscall.PROT_READ); err != nil {
		t.Fatal(err)
	}
	start := uintptr(unsafe.Pointer(&mem[0]))
	releasePages([]codeRegion{{start: start, end: start + uintptr(len(mem)), anonymous: true}})

	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip(err)
	}
	defer pagemap.Close()
	buf := make([]byte, 8*pages)
	if _, err := pagemap.ReadAt(buf, int64(start/uintptr(page))*8); err != nil {
		t.Skip(err)
	}
	for i := range pages {
		e := binary.LittleEndian.Uint64(buf[8*i:])
		present := e&pmPresent != 0
		if i == own && (!present || e&pmFileOrSh != 0) {
			t.Errorf("page %d, written by the process, is no longer its own (pagemap %#x)", i, e)
		}
		if i != own && present {
			t.Errorf("page %d, the file's, is still mapped (pagemap %#x)", i, e)
		}
	}
	if mem[own*page] != 0xAA {
		t.Errorf("the written page reads %#x; want 0xaa", mem[own*page])
	}
	for i := range pages {
		if i != own && mem[i*page] != byte(i) {
			t.Errorf("page %d reads %d; want the file's %d", i, mem[i*page], i)
		}
	}
}

// TestEvictFile: the pages of a file on disk that no one maps leave the
// page cache (mincore on a fresh mapping sees none of them), and the file
// reads back the same.
func TestEvictFile(t *testing.T) {
	page := os.Getpagesize()
	content := make([]byte, 64*page)
	for i := range content {
		content[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil { // pages still to be written stay
		t.Fatal(err)
	}
	if resident := residentPages(t, f, len(content)); resident == 0 {
		t.Skip("the file's pages are not in the page cache after writing it (a file system that bypasses it?)")
	}
	if err := evictFile(f); err != nil {
		t.Fatal(err)
	}
	if resident := residentPages(t, f, len(content)); resident != 0 {
		t.Errorf("%d of %d pages still in the page cache", resident, len(content)/page)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != string(content) {
		t.Errorf("the file reads back different (%v)", err)
	}
}

// residentPages maps f's first n bytes, without touching them, and counts
// the pages mincore says are in the page cache.
func residentPages(t *testing.T, f *os.File, n int) int {
	t.Helper()
	mem, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	vec := make([]byte, (n+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(n), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	resident := 0
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident
}
