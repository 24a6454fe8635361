//go:build unix

package app

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// floorScript starts $N echo servers ($BIN with the fake's environment)
// at once, each on a pair of FIFOs, writes each one the initialize request
// and waits until every one has answered with a line; then prints "ready".
// The servers are not waited for: the benchmark ends the process group.
const floorScript = `set -e
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
readers=
i=0
while [ "$i" -lt "$N" ]; do
	mkfifo "$dir/in$i" "$dir/out$i"
	MCPTRAY_FAKE_SERVER=echo GORACE=atexit_sleep_ms=0 "$BIN" <"$dir/in$i" >"$dir/out$i" &
	( exec 3>"$dir/in$i"; printf '%s\n' "$INIT" >&3; IFS= read -r line <"$dir/out$i"; [ -n "$line" ] ) &
	readers="$readers $!"
	i=$((i + 1))
done
for r in $readers; do wait "$r"; done
echo ready
`

// floorInit is the initialize request the floor's shell sends each server.
const floorInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`

// startFloor runs floorScript for n servers and returns how long it took
// from starting sh to its "ready".
func startFloor(b *testing.B, n int) time.Duration {
	b.Helper()
	cmd := exec.Command("/bin/sh", "-c", floorScript)
	cmd.Env = append(os.Environ(), "N="+strconv.Itoa(n), "BIN="+testBin(b), "INIT="+floorInit)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	d := time.Since(t0)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	if line != "ready\n" {
		b.Fatalf("the floor's shell: %q\n%s", line, stderr.String())
	}
	return d
}
