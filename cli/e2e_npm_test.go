//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// npmPeers is the folder scripts/npm-peers.sh installed the real npm MCP
// servers into. Inside `make test` (MCPTRAY_TEST_SESSION=1) it must exist;
// elsewhere the test is skipped with the command that installs them.
func npmPeers(t *testing.T) string {
	dir := os.Getenv("MCPTRAY_NPM_PEERS")
	if dir == "" {
		dir, _ = filepath.Abs(".cache/npm-peers")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything")); err != nil {
		if os.Getenv("MCPTRAY_TEST_SESSION") == "1" {
			t.Fatalf("npm peers missing in %s (make test installs them with scripts/npm-peers.sh)", dir)
		}
		t.Skip("npm peers not installed; run scripts/npm-peers.sh (make test does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node not on PATH")
	}
	return dir
}

// children lists the pids whose parent is pid.
func children(pid int) []int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// The acceptance run: server-everything from npm (behind a shell, so
// node is a grandchild), a crashing server and a slow one, under edits,
// toggles and kill -9.
func TestServerEverythingUnderEditsTogglesAndKill9(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	servers := map[string]any{
		"everything": map[string]any{"command": "sh", "args": []string{"-c", "node \"$0\" stdio; exit $?", everything}},
		"crash":      fakeEntry(t, "crash"),
		"slow":       fakeEntry(t, "silent"),
	}
	in := startDaemon(t, servers)
	st := in.WaitFor("everything ready, crash failing, slow starting", func(st statusJSON) bool {
		c, _ := state(st, "crash")
		return states("everything", "ready", "slow", "starting")(st) && (c == "error" || c == "crash-loop")
	})
	for _, s := range st.Servers {
		if s.Name == "everything" && s.Tools < 5 {
			t.Errorf("server-everything lists %d tools", s.Tools)
		}
	}
	_, shPID := state(st, "everything")

	// An edit to another entry leaves server-everything alone.
	servers["extra"] = fakeEntry(t, "echo")
	writeConfig(t, in.Config, servers)
	st = in.WaitFor("extra ready", states("extra", "ready"))
	if _, pid := state(st, "everything"); pid != shPID {
		t.Errorf("server-everything restarted by an unrelated edit: %d → %d", shPID, pid)
	}

	// Toggle the slow one off and on.
	_, slowPID := state(st, "slow")
	if code, _, errs := in.Run("toggle", "slow", "off"); code != 0 {
		t.Fatal(errs)
	}
	in.WaitFor("slow disabled", states("slow", "disabled"))
	waitGone(t, slowPID, "slow server")
	in.Run("toggle", "slow", "on")
	st = in.WaitFor("slow starting again", states("slow", "starting"))

	// kill -9 of mcptray leaves no server behind: not sh, not node, not the fakes.
	var pids []int
	for _, s := range st.Servers {
		if s.PID > 0 {
			pids = append(pids, s.PID)
		}
	}
	nodes := children(shPID)
	if len(nodes) == 0 {
		t.Fatalf("no node process under sh (pid %d)", shPID)
	}
	pids = append(pids, nodes...)
	in.Cmd.Process.Signal(syscall.SIGKILL)
	<-in.Exited
	for _, pid := range pids {
		waitGone(t, pid, "server process after kill -9")
	}
}
