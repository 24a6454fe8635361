package downstream

import (
	"bufio"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ReleaseHugeCodeMappings makes the kernel map this program's code and
// read-only data page by page, as it is used, instead of in 2 MiB pieces,
// and drops from this process the pages of them it has touched so far.
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
//
// It can be called again, once start-up has settled: the pages only start-up used (package initialisation, the first
// garbage collections' walks of the function tables, code run once) leave
// the resident set until something touches them again.
//
// Only file pages are dropped. A read-only mapping can still hold pages
// that are the process's own (the dynamic linker's relocations, made
// read-only after): MADV_DONTNEED would throw those away, and the next
// read would see the file's unrelocated bytes. /proc/self/pagemap says,
// page by page, which are the file's; where it cannot be read, a mapping
// holding any anonymous page is left alone (smaps' Anonymous).
func ReleaseHugeCodeMappings() {
	releasePages(codeRegions())
}

// EvictCodeCache asks the kernel to drop from the page cache the pages of
// this program's executable that no process maps (POSIX_FADV_DONTNEED),
// so that they come back, when touched, in small pieces.
//
// The kernel maps a file's page cache into a process one folio at a time:
// touch one byte of a binary the linker or a package manager has just
// written, held in 2 MiB folios, and 2 MiB become resident
// (ReleaseHugeCodeMappings' MADV_NOHUGEPAGE does not change that; a
// binary read back from disk comes in 64 KiB pieces). The tray app with
// 20 servers kept 24 MB of its binary resident that way, against 12–14
// after this (docs/performance.md, issue 31). Call it right after
// ReleaseHugeCodeMappings, in the long-running instance only (run,
// daemon): the pages start-up needs next are read back from the disk —
// no slower start was measurable here — and a page another process maps
// (the watchdog, a `connect`) stays. Pages still to be written to the
// disk cannot be dropped.
func EvictCodeCache() {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return
	}
	defer f.Close()
	evictFile(f)
}

// evictFile drops f's unmapped, clean pages from the page cache.
func evictFile(f *os.File) error {
	const fadvDontNeed = 4 // POSIX_FADV_DONTNEED
	_, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// releasePages marks regions no-huge-page and drops their file pages
// from this process (ReleaseHugeCodeMappings).
func releasePages(regions []codeRegion) {
	if len(regions) == 0 {
		return
	}
	pagemap, _ := os.Open("/proc/self/pagemap")
	if pagemap != nil {
		defer pagemap.Close()
	}
	for _, r := range regions {
		syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_NOHUGEPAGE)
		if !r.anonymous {
			syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_DONTNEED)
			continue
		}
		if pagemap == nil {
			continue
		}
		runs, ok := filePageRuns(pagemap, r.start, r.end)
		if !ok {
			continue
		}
		for _, run := range runs {
			syscall.Syscall(syscall.SYS_MADVISE, run.start, run.end-run.start, syscall.MADV_DONTNEED)
		}
	}
}

// codeRegion is one read-only private mapping of the binary.
type codeRegion struct {
	start, end uintptr
	anonymous  bool // smaps counts pages of it that are not the file's
}

// codeRegions lists this program's read-only private mappings of its own
// executable, from /proc/self/smaps.
func codeRegions() []codeRegion {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return nil
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil
	}
	defer f.Close()
	var regions []codeRegion
	ours := false // the mapping being read is one of regions
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok {
			if ours && strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) != "0" {
				regions[len(regions)-1].anonymous = true
			}
			continue
		}
		// A mapping's first line: start-end perms offset dev inode [path]
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
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
		ours = path == exe && len(perms) == 4 && perms[1] != 'w' && perms[3] == 'p'
		if ours {
			regions = append(regions, codeRegion{start: uintptr(start), end: uintptr(end)})
		}
	}
	return regions
}

// pageRun is a run of pages [start, end).
type pageRun struct{ start, end uintptr }

// pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst).
const (
	pmPresent  = 1 << 63
	pmSwapped  = 1 << 62
	pmFileOrSh = 1 << 61 // a file page or shared anonymous
)

// filePageRuns reads pagemap for [start, end) and returns the runs of
// pages that are not the process's own: present file pages and pages not
// present at all (dropping those is a no-op). A page present but not the
// file's, or swapped out, is the process's own and splits the runs. ok is
// false when pagemap cannot be read: drop nothing then.
func filePageRuns(pagemap *os.File, start, end uintptr) (runs []pageRun, ok bool) {
	page := uintptr(os.Getpagesize())
	n := int((end - start) / page)
	buf := make([]byte, 8*n)
	if _, err := pagemap.ReadAt(buf, int64(start/page)*8); err != nil {
		return nil, false
	}
	runStart := uintptr(0)
	inRun := false
	for i := range n {
		e := binary.LittleEndian.Uint64(buf[8*i:])
		own := e&pmSwapped != 0 || (e&pmPresent != 0 && e&pmFileOrSh == 0)
		addr := start + uintptr(i)*page
		switch {
		case !own && !inRun:
			runStart, inRun = addr, true
		case own && inRun:
			runs = append(runs, pageRun{runStart, addr})
			inRun = false
		}
	}
	if inRun {
		runs = append(runs, pageRun{runStart, end})
	}
	return runs, true
}
