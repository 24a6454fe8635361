package downstream

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// The two calls of the Job Object API that golang.org/x/sys/windows does
// not wrap, and the one structure it does not define.
var (
	procIsProcessInJob  = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")
	procNtResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")
)

// isProcessInJob reports whether process (a handle with
// PROCESS_QUERY_LIMITED_INFORMATION) is in job.
func isProcessInJob(process, job windows.Handle) (bool, error) {
	var in int32
	r, _, err := procIsProcessInJob.Call(uintptr(process), uintptr(job), uintptr(unsafe.Pointer(&in)))
	if r == 0 {
		return false, err
	}
	return in != 0, nil
}

// ntResumeProcess resumes every thread of process (a handle with
// PROCESS_SUSPEND_RESUME), started with CREATE_SUSPENDED.
func ntResumeProcess(process windows.Handle) error {
	r, _, _ := procNtResumeProcess.Call(uintptr(process))
	if r != 0 {
		return windows.NTStatus(r)
	}
	return nil
}

// jobBasicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobBasicAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// activeProcesses is how many processes of job have not ended.
func activeProcesses(job windows.Handle) (uint32, error) {
	var info jobBasicAccounting
	err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return info.ActiveProcesses, err
}
