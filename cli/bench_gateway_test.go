//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

// End-to-end benchmarks of the gateway (issue 3, "Speed"): the same echo
// fake called directly and through a real `mcptray daemon`, with the same
// raw JSON-RPC client (bench_rpc_test.go) on both sides, so the ratios
// measure the gateway alone.
//
//	scripts/desktop-session.sh go test -run '^$' -bench Gateway -benchtime 1x ./cli
//
// (`make bench` runs them after every other benchmark and repeats the
// ratio lines at the end.) Each benchmark does a fixed amount of work
// whatever b.N is, so run them with -benchtime 1x; ns/op is left out, the
// numbers are the reported metrics:
//
//	BenchmarkGatewayStdio         direct stdio vs through `mcptray connect`
//	BenchmarkGatewayStdio2026     the same for a 2026-07-28 client
//	BenchmarkGatewayStdioBusyCPU  the same beside a CPU-bound process per CPU
//	BenchmarkGatewayHTTP          direct streamable HTTP vs through /mcp
//	BenchmarkGatewayThroughput    calls/s with 8 concurrent callers, both
//	BenchmarkGatewayRSS           the daemon's VmRSS with 1 and 20 servers
//
// Direct and gateway calls take turns, in blocks of calls (latency) or in
// rounds (throughput), so both see the same machine; the latency
// benchmarks measure five rounds (round-1 … round-5, fresh processes
// each) and compare the medians with the targets. The HTTP parts need the
// bearer token from the keyring (the desktop session has one) and the
// fake's HTTP mode (MCPTRAY_FAKE_HTTP), and skip saying so otherwise.
// Nothing here asserts a timing: the targets are printed beside the
// numbers.

const (
	benchCalls    = 2000 // measured calls per side
	benchBlock    = 100  // calls in a row on one side (latency)
	benchWarmup   = 200  // calls per side before measuring
	benchCallers  = 8    // concurrent callers in the throughput benchmark
	benchRSSCalls = 400  // calls made before reading the RSS
)

// Targets from the issue.
const (
	targetStdioP50   = 1.3
	targetHTTPP50    = 1.2
	targetThroughput = 0.8
	targetRSSMB      = 25.0
)

// httpFakeEnv asks mcptest's fake to serve streamable HTTP on the given
// address instead of stdio, printing its URL as the first stdout line.
const httpFakeEnv = "MCPTRAY_FAKE_HTTP"

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func µs(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// side is one way to the echo fake: a session and the tool's name there.
type side struct {
	name string
	c    rpcClient
	e    echoCall
}

// latencies makes benchCalls calls on each side, in blocks of benchBlock
// that take turns, and returns each side's latencies. Blocks, not single
// calls, take turns: a call right after one through the gateway would
// share the CPUs with the gateway processes going idle.
func latencies(b *testing.B, sides ...side) [][]time.Duration {
	b.Helper()
	do := func(s side) {
		if err := s.e.do(s.c); err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
	}
	for range benchWarmup {
		for _, s := range sides {
			do(s)
		}
	}
	lat := make([][]time.Duration, len(sides))
	for i := range lat {
		lat[i] = make([]time.Duration, 0, benchCalls)
	}
	for range benchCalls / benchBlock {
		for i, s := range sides {
			for range benchBlock {
				t0 := time.Now()
				do(s)
				lat[i] = append(lat[i], time.Since(t0))
			}
		}
	}
	return lat
}

// benchRounds is how many independent rounds the latency benchmarks
// measure. Each round starts every process afresh (daemon, fakes, relays)
// and makes benchCalls calls per side; the ratios compared with the
// targets are the medians of the rounds' ratios, as benchstat takes the
// median of -count runs. One round is not enough on the 2-vCPU VM: its
// stdio ratio moves by ±0.05× with which vCPU each process happens to wake
// on, in patches that last seconds — 12,000 calls a side spread as widely
// as 2000 — and a relay in C that only copies bytes measured 0.96× to
// 1.31× in single rounds (docs/performance.md).
const benchRounds = 5

// sideStats is one side's p50 and p99 in one round.
type sideStats struct{ p50, p99 time.Duration }

// inRounds measures benchRounds rounds, each a sub-benchmark (round-1, …)
// that starts its sides with start, times them (latencies), reports the
// ratio of side 1 to side 0 and stops its processes at its end. It
// returns the rounds' stats, [round][side]: none when the rounds skipped.
func inRounds(b *testing.B, start func(b *testing.B) []side) [][]sideStats {
	b.Helper()
	var rounds [][]sideStats
	for i := range benchRounds {
		ok := b.Run(fmt.Sprintf("round-%d", i+1), func(b *testing.B) {
			lat := latencies(b, start(b)...)
			st := make([]sideStats, len(lat))
			for j, l := range lat {
				st[j] = sideStats{percentile(l, 0.50), percentile(l, 0.99)}
			}
			rounds = append(rounds, st)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(µs(st[0].p50), "direct-p50-µs")
			b.ReportMetric(µs(st[1].p50), "gateway-p50-µs")
			b.ReportMetric(ratio(st[1].p50, st[0].p50), "p50-ratio")
		})
		if !ok || len(rounds) == 0 {
			break // failed, or skipped (no HTTP): the next rounds would too
		}
	}
	return rounds
}

// summary prints a gateway line on stdout, which make bench repeats at
// its end: go test prints the log of a benchmark with sub-benchmarks (or
// a skipped one) only with -v or when it fails.
func summary(b testing.TB, format string, args ...any) {
	fmt.Printf("%s: gateway: %s\n", b.Name(), fmt.Sprintf(format, args...))
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// median returns the median of x (the lower middle one of an even count).
func median[T float64 | time.Duration](x []T) T {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// across returns one value per round.
func across[T any](rounds [][]sideStats, f func([]sideStats) T) []T {
	out := make([]T, len(rounds))
	for i, st := range rounds {
		out[i] = f(st)
	}
	return out
}

// p50Ratios is side's p50 over the direct side's (side 0), per round.
func p50Ratios(rounds [][]sideStats, side int) []float64 {
	return across(rounds, func(st []sideStats) float64 { return ratio(st[side].p50, st[0].p50) })
}

// medianP50 is side's median p50 over the rounds, in µs.
func medianP50(rounds [][]sideStats, side int) float64 {
	return µs(median(across(rounds, func(st []sideStats) time.Duration { return st[side].p50 })))
}

// roundList formats the rounds' ratios, lowest first.
func roundList(r []float64) string {
	s := slices.Clone(r)
	slices.Sort(s)
	var out []string
	for _, x := range s {
		out = append(out, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(out, " ")
}

// reportLatency prints side 1's p50 and p99 against the direct side's,
// each the median over the rounds, with the p50 ratio against target.
func reportLatency(b *testing.B, what, via string, target float64, rounds [][]sideStats) {
	b.Helper()
	p50 := func(side int) float64 { return medianP50(rounds, side) }
	p99 := func(side int) float64 {
		return µs(median(across(rounds, func(st []sideStats) time.Duration { return st[side].p99 })))
	}
	r50s := p50Ratios(rounds, 1)
	r50 := median(r50s)
	r99 := median(across(rounds, func(st []sideStats) float64 { return ratio(st[1].p99, st[0].p99) }))
	summary(b, "%s p50: direct %.0f µs, %s %.0f µs: %.2f× (target ≤ %.1f×: %s); p99 %.0f vs %.0f µs (%.2f×); medians of %d rounds, whose p50 ratios were %s",
		what, p50(0), via, p50(1), r50, target, verdict(r50 <= target), p99(0), p99(1), r99, len(rounds), roundList(r50s))
}

// BenchmarkGatewayStdio: the echo fake over stdio, directly and through
// `mcptray connect` (connect process → control socket → daemon → the same
// fake over stdio). It also measures the control socket without the
// connect process in between, to show what that hop costs, and the floor:
// the same fake behind the smallest relay in Go (io.Copy both ways:
// mcptest's relay mode) and in C (blocking reads: testdata/relay.c, when
// cc is there). With the connect process handing its stdio over, mcptray
// is one process in between, as a relay is; what a relay alone adds is
// what any gateway process costs on this machine.
func BenchmarkGatewayStdio(b *testing.B) {
	cRelay := buildCRelay(b)
	rounds := inRounds(b, func(b *testing.B) []side {
		in := startBenchDaemon(b, echoServers(1))
		sides := []side{
			{"direct", directEcho(b), newEchoCall("echo")},
			{"through connect", in.connect(b), newEchoCall("echo__echo")},
			{"through the control socket", in.socket(b), newEchoCall("echo__echo")},
			{"through a Go relay", relayedEcho(b, "", "relay"), newEchoCall("echo")},
		}
		if cRelay != "" {
			sides = append(sides, side{"through a C relay", relayedEcho(b, cRelay, "echo"), newEchoCall("echo")})
		}
		return sides
	})
	if len(rounds) == 0 {
		return
	}
	reportLatency(b, "stdio", "through connect", targetStdioP50, rounds)
	s := p50Ratios(rounds, 2)
	summary(b, "stdio p50 without the connect process (control socket): %.2f× direct (rounds %s)", median(s), roundList(s))
	floor := ""
	for i, name := range []string{"through a Go relay", "through a C relay"} {
		if 3+i < len(rounds[0]) {
			r := p50Ratios(rounds, 3+i)
			floor += fmt.Sprintf("; %s %.2f× (rounds %s)", name, median(r), roundList(r))
		}
	}
	summary(b, "stdio p50 of one process in between, doing nothing else (the floor)%s", floor)
}

// BenchmarkGatewayStdio2026: BenchmarkGatewayStdio's first two sides for
// a client of the 2026-07-28 wire (server/discover, then calls that carry
// their version in _meta), direct and through `mcptray connect` alike.
func BenchmarkGatewayStdio2026(b *testing.B) {
	rounds := inRounds(b, func(b *testing.B) []side {
		in := startBenchDaemon(b, echoServers(1))
		return []side{
			{"direct", directEchoWith(b, discover), newEchoCall2026("echo")},
			{"through connect", in.connectWith(b, discover), newEchoCall2026("echo__echo")},
		}
	})
	if len(rounds) == 0 {
		return
	}
	reportLatency(b, "stdio (2026-07-28)", "through connect", targetStdioP50, rounds)
}

// BenchmarkGatewayStdioBusyCPU: direct against `mcptray connect` as in
// BenchmarkGatewayStdio, with one CPU-bound process per CPU running
// beside them (a laptop building something). It watches the hand-off's
// guard (mcp/handoff.go): the gateway yields its CPU after each write,
// and beside a task that keeps the CPU a yield costs that task's whole
// slice, so unguarded this was ≈ 10× direct. No target of the issue's
// applies; the ratio should stay near the quiet machine's.
func BenchmarkGatewayStdioBusyCPU(b *testing.B) {
	for range runtime.NumCPU() {
		busy := exec.Command("yes") // its output goes to /dev/null
		busy.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := busy.Start(); err != nil {
			skipBench(b, "no CPU-bound process: "+err.Error())
			return
		}
		b.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	}
	rounds := inRounds(b, func(b *testing.B) []side {
		in := startBenchDaemon(b, echoServers(1))
		return []side{
			{"direct", directEcho(b), newEchoCall("echo")},
			{"through connect", in.connect(b), newEchoCall("echo__echo")},
		}
	})
	if len(rounds) == 0 {
		return
	}
	r := p50Ratios(rounds, 1)
	summary(b, "stdio p50 beside %d CPU-bound processes: direct %.0f µs, through connect %.0f µs: %.2f× (rounds %s; the hand-off unguarded: ≈ 10×)",
		runtime.NumCPU(), medianP50(rounds, 0), medianP50(rounds, 1), median(r), roundList(r))
}

// relayedEcho starts the echo fake behind a relay: relay is a relay
// program given the test binary to run (in mode echo), or "" for the test
// binary itself in mode (mcptest's relay).
func relayedEcho(b testing.TB, relay, mode string) *streamClient {
	b.Helper()
	c, _ := relayedEchoPid(b, relay, mode)
	return c
}

// relayedEchoPid is relayedEcho, also returning the relay's process id.
func relayedEchoPid(b testing.TB, relay, mode string) (*streamClient, int) {
	b.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	if relay != "" {
		cmd = exec.Command(relay, exe)
	}
	cmd.Env = mcptest.Env(mode)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c := startSession(b, cmd)
	return c, cmd.Process.Pid
}

// buildCRelay compiles testdata/relay.c, or logs why not and returns "".
func buildCRelay(b testing.TB) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "relay")
	out, err := exec.Command("cc", "-O2", "-pthread", "-o", bin, "testdata/relay.c").CombinedOutput()
	if err != nil {
		b.Logf("no C relay: cc: %v %s", err, out)
		return ""
	}
	return bin
}

// BenchmarkGatewayHTTP: the echo fake served over streamable HTTP,
// directly and through the daemon's /mcp, which reaches the echo fake
// over stdio (the ratio against the target). It also measures /mcp in
// front of the very process called directly, as an HTTP server of the
// daemon (the HTTP remote path).
func BenchmarkGatewayHTTP(b *testing.B) {
	rounds := inRounds(b, func(b *testing.B) []side {
		fakeURL := startHTTPEcho(b)
		servers := echoServers(1)
		servers["web"] = map[string]any{"url": fakeURL}
		in := startBenchDaemon(b, servers)
		url, token := in.httpEndpoint(b)
		direct, gateway := httpSession(b, "direct HTTP", fakeURL, ""), httpSession(b, "through /mcp", url, token)
		return []side{
			{"direct", direct, newEchoCall("echo")},
			{"through /mcp", gateway, newEchoCall("echo__echo")},
			{"through /mcp to the HTTP server", gateway, newEchoCall("web__echo")},
		}
	})
	if len(rounds) == 0 {
		return
	}
	reportLatency(b, "HTTP", "through /mcp", targetHTTPP50, rounds)
	h := p50Ratios(rounds, 2)
	summary(b, "HTTP p50 with the same fake as an HTTP server behind /mcp: %.2f× direct (rounds %s)", median(h), roundList(h))
}

// httpSession initializes a streamable HTTP session with url.
func httpSession(b *testing.B, what, url, token string) *httpClient {
	b.Helper()
	c := newHTTPClient(url, token)
	b.Cleanup(c.close)
	if err := initialize(c); err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	return c
}

// startHTTPEcho starts the echo fake serving streamable HTTP on a free
// loopback port and returns its URL; it skips the benchmark when the fake
// cannot serve HTTP.
func startHTTPEcho(b *testing.B) string {
	b.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = mcptest.Env("echo", httpFakeEnv+"=127.0.0.1:0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Its stdin is /dev/null: a fake without HTTP support serves stdio,
	// sees end of input and exits, which ends this line at once.
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "http://") {
		why := fmt.Sprintf("direct HTTP not measured: the mcptest fake has no HTTP mode (%s=ADDR)", httpFakeEnv)
		if line != "" {
			why += fmt.Sprintf(": it printed %q; stderr: %s", line, stderr.String())
		}
		skipBench(b, why)
	}
	return line
}

// throughput makes total echo calls from benchCallers goroutines sharing
// one session and returns how long they took.
func throughput(b *testing.B, c rpcClient, e echoCall, total int) time.Duration {
	b.Helper()
	var left atomic.Int64
	left.Store(int64(total))
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	start := time.Now()
	for range benchCallers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := e.do(c); err != nil {
					once.Do(func() { failed = err })
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failed != nil {
		b.Fatal(failed)
	}
	return elapsed
}

// throughputRounds is how many times direct and gateway take turns in
// compareThroughput, benchCalls/2 calls each time: a round takes a few
// tenths of a second, and a slow patch of a shared VM that long would
// decide the ratio if each side ran once (with two rounds, 0.74–0.94×
// over eight runs; see docs/performance.md).
const throughputRounds = 6

// A throughputSide is one way of calling the echo fake in
// compareThroughput; pid, when not 0, is the process in between (the
// daemon, a relay), whose CPU time per call is reported.
type throughputSide struct {
	c    rpcClient
	e    echoCall
	pid  int
	took time.Duration
	cpu  time.Duration
}

// compareThroughput runs rounds of concurrent calls, direct and gateway
// taking turns, and reports both rates and their ratio. A floor side (a
// relay that only copies bytes), when given, takes its turn too and is
// reported after the verdict, as what any process in between costs; so
// is the CPU time the process in between spent per call.
func compareThroughput(b *testing.B, what string, sides ...*throughputSide) {
	b.Helper()
	for _, sd := range sides {
		throughput(b, sd.c, sd.e, benchWarmup)
	}
	const perRound = benchCalls / 2
	for range throughputRounds {
		for _, sd := range sides {
			cpu0 := processCPU(sd.pid)
			sd.took += throughput(b, sd.c, sd.e, perRound)
			sd.cpu += processCPU(sd.pid) - cpu0
		}
	}
	n := float64(throughputRounds * perRound)
	rate := func(sd *throughputSide) float64 { return n / sd.took.Seconds() }
	perCall := func(sd *throughputSide) float64 { return float64(sd.cpu.Microseconds()) / n }
	dr, gr := rate(sides[0]), rate(sides[1])
	ratio := gr / dr
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(dr, "direct-calls/s")
	b.ReportMetric(gr, "gateway-calls/s")
	b.ReportMetric(ratio, "ratio")
	b.Logf("gateway: %s throughput, %d callers: direct %.0f calls/s, gateway %.0f calls/s: %.2f× (target ≥ %.1f×: %s); the daemon's CPU %.0f µs a call",
		what, benchCallers, dr, gr, ratio, targetThroughput, verdict(ratio >= targetThroughput), perCall(sides[1]))
	if len(sides) > 2 {
		fr := rate(sides[2])
		b.ReportMetric(fr/dr, "c-relay-ratio")
		b.Logf("gateway: %s throughput through a C relay, doing nothing else (the floor): %.0f calls/s: %.2f× direct; the relay's CPU %.0f µs a call",
			what, fr, fr/dr, perCall(sides[2]))
	}
}

// BenchmarkGatewayThroughput: calls per second with 8 concurrent callers
// on one session, directly and through the gateway, over stdio
// (`mcptray connect`, and the C relay of BenchmarkGatewayStdio as the
// floor) and over HTTP (/mcp).
func BenchmarkGatewayThroughput(b *testing.B) {
	in := startBenchDaemon(b, echoServers(1))
	daemon := in.Cmd.Process.Pid
	b.Run("stdio", func(b *testing.B) {
		direct, gateway := directEcho(b), in.connect(b)
		direct.pipeline()
		gateway.pipeline()
		sides := []*throughputSide{{c: direct, e: newEchoCall("echo")}, {c: gateway, e: newEchoCall("echo__echo"), pid: daemon}}
		if cRelay := buildCRelay(b); cRelay != "" {
			relayed, pid := relayedEchoPid(b, cRelay, "echo")
			relayed.pipeline()
			sides = append(sides, &throughputSide{c: relayed, e: newEchoCall("echo"), pid: pid})
		}
		compareThroughput(b, "stdio", sides...)
	})
	b.Run("http", func(b *testing.B) {
		url, token := in.httpEndpoint(b)
		direct, gateway := httpSession(b, "direct HTTP", startHTTPEcho(b), ""), httpSession(b, "through /mcp", url, token)
		compareThroughput(b, "HTTP", &throughputSide{c: direct, e: newEchoCall("echo")}, &throughputSide{c: gateway, e: newEchoCall("echo__echo"), pid: daemon})
	})
}

// BenchmarkGatewayRSS: the daemon's resident memory (VmRSS) with 1 and 20
// echo servers ready, after a few hundred calls through `mcptray connect`
// (and HTTP, when there is a token) spread over the servers. Built with
// -tags headless (CGO_ENABLED=0, as `make build-headless`; `make bench`
// runs it that way too) the daemon is this test binary running as mcptray
// (idle, the built mcptray's RSS is the same within 0.1 MB): the headless
// mcptray the target is about. Built as usual, it is the tray
// binary, built for the benchmark from the module's root (this package
// never links the UI), running `mcptray daemon` with Fyne linked in. Besides VmRSS
// it reports RssAnon, the daemon's own memory: most of the rest is the
// binary's text and rodata, clean file pages, which kernels with large
// page-cache folios (6.16+ on ext4) map in large pieces. The watchdog
// process is reported apart.
func BenchmarkGatewayRSS(b *testing.B) {
	// The real binaries, as `make build-headless` and `make build` make
	// them: this test binary links what only tests use (the fake Google,
	// the Google servers in process), whose pages would count too.
	var bin string
	if headlessBuild() {
		bin = buildMcptray(b, "mcptray-headless", []string{"CGO_ENABLED=0"}, "-tags", "headless")
	} else {
		bin = buildTray(b)
	}
	for _, n := range []int{1, 20} {
		b.Run(fmt.Sprintf("servers-%d", n), func(b *testing.B) {
			servers := echoServers(n)
			in := startBenchBinary(b, bin, servers)
			var calls []echoCall
			for name := range servers {
				calls = append(calls, newEchoCall(name+"__echo"))
			}
			clients := []rpcClient{in.connect(b)}
			if url, token, why := in.httpEndpointOr(b); why == "" {
				clients = append(clients, httpSession(b, "through /mcp", url, token))
			} else {
				b.Logf("gateway: RSS after calls through connect only: %s", why)
			}
			for i := range benchRSSCalls {
				c := clients[i%len(clients)]
				if err := calls[i/len(clients)%len(calls)].do(c); err != nil {
					b.Fatal(err)
				}
			}
			pid := in.Cmd.Process.Pid
			mem, err := readMemory(pid)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(mem.MB(), "daemon-rss-MB")
			b.ReportMetric(float64(mem.anonKB)/1024, "daemon-anon-MB")
			wd := ""
			if wpid := watchdogPID(pid); wpid != 0 {
				if wmem, err := readMemory(wpid); err == nil {
					b.ReportMetric(wmem.MB(), "watchdog-rss-MB")
					wd = fmt.Sprintf("; watchdog %.1f MB", wmem.MB())
				}
			}
			build, target := "headless build", ""
			if !headlessBuild() {
				build = "tray binary, Fyne linked"
			}
			if n == 20 {
				target = fmt.Sprintf(" (target ≤ %.0f MB for the headless build: %s)", targetRSSMB, verdict(mem.MB() <= targetRSSMB))
				if !headlessBuild() {
					target = fmt.Sprintf(" (the ≤ %.0f MB target is the headless build's)", targetRSSMB)
				}
			}
			b.Logf("gateway: RSS with %d server(s), %s: daemon %s%s%s", n, build, mem, target, wd)
		})
	}
}
