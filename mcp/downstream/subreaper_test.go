//go:build linux

package downstream

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// testSubreaperEnv=1 makes the test binary runSubreaperParent.
const testSubreaperEnv = "MCPTRAY_TEST_SUBREAPER"

// TestSubreaperReapsOnlyAdopted runs a subreaper in a child process (the
// attribute is for the whole process): it must adopt and reap an orphan,
// and take no exit status from the children others wait for.
func TestSubreaperReapsOnlyAdopted(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(removeEnv(mcptest.Env(""), mcptest.ModeEnv), testSubreaperEnv+"=1", testPidFileEnv+"="+filepath.Join(t.TempDir(), "orphan.pid"))
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("subreaper parent: %v\n%s", err, out)
	}
}

// runSubreaperParent prints "ok", or what went wrong.
func runSubreaperParent() int {
	if err := subreaperChecks(); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

func subreaperChecks() error {
	stop, err := Subreap()
	if err != nil {
		return err
	}
	defer stop()

	// A double fork: the daemonizer exits, its setsid'd sleeper is ours.
	pidfile := os.Getenv(testPidFileEnv)
	d := exec.Command(os.Args[0])
	d.Env = mcptest.Env("daemonizer", mcptest.PidFileEnv+"="+pidfile)
	if out, err := d.CombinedOutput(); err != nil {
		return fmt.Errorf("daemonizer: %v: %s", err, out)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		return err
	}
	var orphan int
	fmt.Sscan(string(b), &orphan)
	st, err := readProcStat(orphan)
	if err != nil || st.ppid != os.Getpid() {
		return fmt.Errorf("orphan %d: %+v, %v; want our child", orphan, st, err)
	}

	// The orphan dies and must be reaped, by the reaper's goroutine.
	start := st.start
	syscall.Kill(orphan, syscall.SIGKILL)

	// Children that others wait for keep their exit status, even when a
	// scan comes while they are zombies: one in our group (like the
	// browser opener), and one of this package's in a group of its own.
	inGroup := exec.Command("sh", "-c", "exit 5")
	own := exec.Command("sh", "-c", "exit 3")
	own.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := inGroup.Start(); err != nil {
		return err
	}
	if err := startOwned(own); err != nil {
		return err
	}
	for _, c := range []*exec.Cmd{inGroup, own} {
		if !testkit.Eventually(30*time.Second, func() bool { st, err := readProcStat(c.Process.Pid); return err == nil && st.state == 'Z' }) {
			return fmt.Errorf("%v never exited", c.Args)
		}
	}
	reapAdopted()
	for c, code := range map[*exec.Cmd]int{inGroup: 5, own: 3} {
		err := c.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != code {
			return fmt.Errorf("%v: %v, want exit status %d", c.Args, err, code)
		}
	}
	disown(own.Process.Pid)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := Start(ctx, StdioSpec{Command: os.Args[0], Env: mcptest.Env("crash")}, Hooks{}); err == nil || !strings.HasPrefix(err.Error(), "exited with code 3") {
		return fmt.Errorf("start of a crashing server: %v, want exited with code 3", err)
	}

	if !testkit.Eventually(30*time.Second, func() bool {
		st, err := readProcStat(orphan)
		return err != nil || st.start != start // reaped (or its pid reused)
	}) {
		return fmt.Errorf("the orphan %d is still our zombie", orphan)
	}
	return nil
}
