package app

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// OpenDaemonLog makes path mcptray's own log, for an instance that runs in
// the background (`mcptray connect` starts one with --log DATA/mcptray.log).
// It returns the writer for the core's logger, which appends to path and
// rotates it at max bytes to path.1, and points the process's standard
// output and error at the same file, following every rotation: a panic's
// trace (the runtime writes to GetStdHandle's handle), or anything a
// library prints to os.Stdout or os.Stderr, lands in the current file and
// counts toward its size.
//
// Windows renames no open file, so each rotation first closes the
// standard handles' duplicates (stdHandles.release); the handles the
// process inherited (connect's mcptray.log) are closed at the start.
func OpenDaemonLog(path string, max int64) (io.Writer, error) {
	var std stdHandles
	r := &rotatingFile{path: path, max: max, shared: true, opened: std.point, released: std.release}
	r.mu.Lock()
	defer r.mu.Unlock()
	inherited := []*os.File{os.Stdout, os.Stderr}
	if err := r.open(os.O_APPEND); err != nil {
		return nil, err
	}
	for _, f := range inherited {
		if f != nil && f != os.Stdout && f != os.Stderr {
			f.Close()
		}
	}
	return r, nil
}

// stdHandles are the duplicates of the daemon log's current file that the
// process's standard output and error are; guarded by the rotatingFile's
// mu.
type stdHandles struct{ out, err *os.File }

// point makes stdout and stderr duplicates of f's handle.
func (s *stdHandles) point(f *os.File) {
	s.out = dupAs(f, windows.STD_OUTPUT_HANDLE, "stdout")
	s.err = dupAs(f, windows.STD_ERROR_HANDLE, "stderr")
	if s.out != nil {
		os.Stdout = s.out
	}
	if s.err != nil {
		os.Stderr = s.err
	}
}

// release closes the duplicates, so that the file can be renamed; what is
// printed before the next point is lost.
func (s *stdHandles) release() {
	windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.InvalidHandle)
	windows.SetStdHandle(windows.STD_ERROR_HANDLE, windows.InvalidHandle)
	for _, f := range []*os.File{s.out, s.err} {
		if f != nil {
			f.Close()
		}
	}
	s.out, s.err = nil, nil
}

// dupAs duplicates f's handle and makes it the standard handle which.
func dupAs(f *os.File, which uint32, name string) *os.File {
	p := windows.CurrentProcess()
	var h windows.Handle
	if err := windows.DuplicateHandle(p, windows.Handle(f.Fd()), p, &h, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return nil
	}
	if err := windows.SetStdHandle(which, h); err != nil {
		windows.CloseHandle(h)
		return nil
	}
	return os.NewFile(uintptr(h), name)
}
