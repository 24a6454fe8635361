package downstream

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// family is what a Windows server's family is found and stopped by: a Job
// Object of its own with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE. Every
// process the server starts is in the job too, whatever becomes of its
// parent links (there are no strays to look for), and the job ends them
// all when its last handle closes — ours, which closes with mcptray
// however it ends. That is the process group, subreaper and watchdog of
// Unix in one.
type family struct {
	mu  sync.Mutex
	job windows.Handle // guarded by mu: set by startFamily; closed, and 0, after release
}

// killedCode is the exit code of the processes TerminateJobObject ends,
// as os.Process.Kill gives on Windows.
const killedCode = 1

// startFamily puts the process, started suspended (serverProcAttr), in a
// new Job Object, then lets it run: it cannot start a child before it is
// in the job.
func (p *process) startFamily() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("creating job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("setting job object limits: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, uint32(p.pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("opening the started process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("assigning the process to its job object: %w", err)
	}
	p.mu.Lock()
	p.job = job // from here, closing it ends the process
	p.mu.Unlock()
	if err := ntResumeProcess(h); err != nil {
		p.release()
		return fmt.Errorf("resuming the started process: %w", err)
	}
	return nil
}

// jobHandle is the job, for the peer check (liveServer.job).
func (p *process) jobHandle() uintptr {
	p.mu.Lock()
	defer p.mu.Unlock()
	return uintptr(p.job)
}

// release closes the job: whatever is left in it ends.
func (p *process) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.job != 0 {
		windows.CloseHandle(p.job)
		p.job = 0
	}
}

// collect has no strays to look for: the job holds every descendant.
func (p *process) collect() int { return 0 }

// askFamily has nothing to send: CTRL_BREAK_EVENT needs a console that
// mcptray (a tray app) does not share with its servers, and does not work
// under Wine. Closing stdin, done first, is the request to end; the
// termGrace that follows is the same as on Unix.
func (p *process) askFamily() {}

// killOnce ends every process in the job.
func (p *process) killOnce() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.job != 0 {
		windows.TerminateJobObject(p.job, killedCode)
	}
}

// familyGone reports whether the job has no process left (a job that
// cannot be asked counts as gone: its handle is not ours any more).
func (p *process) familyGone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.job == 0 {
		return true
	}
	n, err := activeProcesses(p.job)
	return err != nil || n == 0
}

// describeExit is the one-line reason and the exit code: Windows has no
// signals, only exit codes (killedCode when the job was terminated).
func describeExit(st *os.ProcessState) (string, int) {
	if st == nil {
		return "exited", -1
	}
	return fmt.Sprintf("exited with code %d", st.ExitCode()), st.ExitCode()
}

// hasDir reports a command given with a directory or a drive, not looked
// up in PATH.
func hasDir(command string) bool {
	return strings.ContainsAny(command, `/\`) || filepath.VolumeName(command) != ""
}

// findExecutable returns path if it is a file, else path with the first
// extension of PATHEXT that names one, as CreateProcess and exec.LookPath
// find "node" as node.exe.
func findExecutable(path string) (string, error) {
	exts := pathExts()
	if filepath.Ext(path) != "" {
		if err := checkFile(path); err == nil {
			return path, nil
		}
	}
	for _, e := range exts {
		if checkFile(path+e) == nil {
			return path + e, nil
		}
	}
	return "", checkFile(path)
}

// pathExts are the extensions of PATHEXT, lower case, or the default.
func pathExts() []string {
	var exts []string
	for e := range strings.SplitSeq(os.Getenv("PATHEXT"), ";") {
		if e != "" && e[0] == '.' {
			exts = append(exts, strings.ToLower(e))
		}
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

// checkFile: Windows runs any file (no execute bits).
func checkFile(path string) error {
	_, err := statFile(path)
	return err
}

// whichCommand is what prints a command's path in a terminal.
const whichCommand = "where"

// sameEnvKey: environment names are compared without case (Path, PATH).
func sameEnvKey(a, b string) bool { return strings.EqualFold(a, b) }
