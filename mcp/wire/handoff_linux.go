package wire

import "syscall"

// canYield: sched_yield(2) hands the CPU to a runnable peer at once.
const canYield = true

// schedYield is sched_yield(2) as a raw system call, which does not go
// through the runtime's system-call entry (see rawio_linux.go).
func schedYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
