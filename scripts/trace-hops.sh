#!/usr/bin/env bash
# trace-hops.sh splits a stdio tool call's time into its hops, for mcptray
# and for the C relay of the same benchmark run (docs/performance.md).
#
# It runs one round of BenchmarkGatewayStdio in the desktop session,
# records the read/write/epoll_pwait system calls of every process for two
# seconds with perf (syscall tracepoints: run as root), and follows each
# request from the bench client through the process in between to the
# echo server and back:
#
#   A  client write → relay's read returns       (the relay wakes)
#   B  relay's read → its write to the server    (the relay's own work)
#   C  → the server's read returns               (the server wakes)
#   D  → the server's write of the reply         (the server's work)
#   E  → the relay's read returns                (the relay wakes)
#   F  → the relay's write to the client         (the relay's own work)
#   G  → the client's read or epoll returns      (the client wakes)
#
# Tracing slows every system call, so compare the rows, not the totals with
# an untraced run.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "trace-hops: perf is not installed (linux-tools / linux-perf)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/mcptray.test" ./cli
# In cli/, as go test runs it: the C relay is built from cli/testdata.
(cd cli && exec ../scripts/desktop-session.sh "$tmp/mcptray.test" -test.run '^$' -test.bench '^BenchmarkGatewayStdio$/^round-1$' -test.benchtime 1x) >"$tmp/bench.out" 2>&1 &
daemon=""
for _ in $(seq 200); do
	daemon=$(pgrep -f "$tmp/mcptray.test daemon" | head -1 || true)
	[ -n "$daemon" ] && break
	sleep 0.05
done
[ -n "$daemon" ] || { echo "trace-hops: the benchmark's daemon did not start" >&2; exit 1; }
bench=$(ps -o ppid= -p "$daemon" | tr -d ' ')
sleep 1 # past the warm-up
perf record -q -o "$tmp/perf.data" -e syscalls:sys_enter_write,syscalls:sys_exit_read,syscalls:sys_exit_epoll_pwait -a -- sleep 2 2>/dev/null
relay=$(pgrep -f "/relay $tmp/mcptray.test" | head -1 || true)
wait
grep -E 'gateway: stdio p50' "$tmp/bench.out" | sed 's/^BenchmarkGatewayStdio: gateway: //' || true
perf script -i "$tmp/perf.data" -F comm,pid,tid,time,event,trace 2>/dev/null >"$tmp/trace.txt"
for who in "mcptray:$daemon" ${relay:+"C relay:$relay"}; do
	python3 - "$tmp/trace.txt" "$bench" "${who#*:}" "${who%%:*}" <<'PY'
import re, statistics, sys
path, bench, relay, label = sys.argv[1:]
ev = []
for line in open(path):
    m = re.match(r'\s*(\S+)\s+(\d+)/(\d+)\s+([\d.]+):\s+syscalls:(\S+):\s*(.*)', line)
    if not m or m.group(1).startswith('perf'):
        continue
    _, pid, _, t, name, rest = m.groups()
    t = float(t) * 1e6
    if name == 'sys_enter_write':
        ev.append((t, pid, 'w', int(re.search(r'count: (0x[0-9a-f]+)', rest).group(1), 16)))
    else:
        v = int(rest.strip(), 16)
        if 0 < v < 1 << 63:
            ev.append((t, pid, 'r', v))
# A tools/call request is 80 to 200 bytes; the hops after it, in order.
hops = [(relay, 'r'), (relay, 'w'), ('server', 'r'), ('server', 'w'), (relay, 'r'), (relay, 'w'), (bench, 'r')]
out = [[] for _ in hops]
i = 0
while i < len(ev):
    t, pid, kind, n = ev[i]
    if pid != bench or kind != 'w' or not 80 < n < 200:
        i += 1
        continue
    ts, j, server = [t], i + 1, None
    for want_pid, want_kind in hops:
        while j < len(ev):
            tt, pp, kk, _ = ev[j]
            j += 1
            if pp == bench and kk == 'w':
                j = len(ev)  # the next request came first: not a clean call
                break
            if want_pid == 'server' and pp not in (bench, relay) and kk == want_kind and server in (None, pp):
                server = pp
                ts.append(tt)
                break
            if pp == want_pid and kk == want_kind:
                ts.append(tt)
                break
    if len(ts) == len(hops) + 1:
        for k in range(len(hops)):
            out[k].append(ts[k + 1] - ts[k])
        i = j
    else:
        i += 1
print(f"{label}: {len(out[0])} calls traced; p50 per hop (µs)")
for name, d in zip('ABCDEFG', out):
    if d:
        print(f"  {name} {statistics.median(d):6.1f}")
PY
done
