package downstream

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ReleaseHugeCodeMappings makes the kernel map this program's code and
// read-only data page by page, as it is used, instead of in 2 MiB pieces.
//
// Recent kernels (6.16+ on ext4, tmpfs, ...) keep a freshly written or read
// file in the page cache as large folios and map them into a process with
// PMD entries: touching one byte of a 2 MiB piece of the binary makes all
// of it resident. For a ~45 MB binary (Fyne, the SDK, SQLite) that is the
// whole text and rodata — ≈ 27 MB of RSS in a daemon whose own memory is
// ≈ 15 MB, and again in its watchdog. Long-running mcptray processes call
// this once at start: MADV_NOHUGEPAGE on the binary's read-only mappings
// (that mapping only: children are not affected), then MADV_DONTNEED so
// that what was mapped in large pieces faults back in small ones. The
// pages are clean copies of the file, so nothing is lost; the next touch
// of a page is a minor fault from the page cache.
func ReleaseHugeCodeMappings() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	// smaps, not maps: a read-only mapping can still hold written pages
	// (the dynamic linker's relocations, made read-only after): only
	// mappings without a single anonymous page are dropped.
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	type region struct {
		start, end uintptr
		ours       bool // read-only, private, of the binary
		anonymous  bool // has pages that are not the file's
	}
	var regions []region
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok {
			if n := len(regions); n > 0 && strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) != "0" {
				regions[n-1].anonymous = true
			}
			continue
		}
		// A mapping's first line: start-end perms offset dev inode [path]
		fields := strings.Fields(line)
		lo, hi, ok := strings.Cut(fields[0], "-")
		if len(fields) < 5 || !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue // a "Key: value" line
		}
		perms := fields[1]
		path := ""
		if len(fields) > 5 {
			path = strings.TrimSuffix(strings.Join(fields[5:], " "), " (deleted)")
		}
		ours := path == exe && len(perms) == 4 && perms[1] != 'w' && perms[3] == 'p'
		regions = append(regions, region{start: uintptr(start), end: uintptr(end), ours: ours})
	}
	for _, r := range regions {
		if !r.ours || r.anonymous {
			continue
		}
		syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_NOHUGEPAGE)
		syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_DONTNEED)
	}
}
