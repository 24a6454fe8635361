package testdaemon

import "os"

// terminate ends the daemon: Windows has no SIGTERM to send another
// process, and the Job Objects end its servers with it.
func terminate(p *os.Process) error { return p.Kill() }
