# shellcheck shell=bash
# Shell helpers for scripts/conformance.sh and conformance/client.sh.
# Source it; it sets no options of its own. Linux only (listen_port reads
# /proc).

conf_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
conf_cache="$conf_root/.cache"
# The go in /usr/local/go counts even when PATH misses it (sudo, cron).
export PATH="$PATH:/usr/local/go/bin"

# conf_pids are the processes the helpers started; conf_cleanup stops them.
conf_pids=()
# conf_node is node 22 (scripts/node22.sh prints it); the caller sets it.
conf_node=""

conf_cleanup() {
	local pid
	for pid in "${conf_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${conf_pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	conf_pids=()
}

# build_tool NAME PACKAGE builds a Go program into .cache/bin/NAME (a no-op
# when the build cache is warm) and prints its path. PACKAGE is an import
# path: the go-sdk's conformance programs come from the module cache at the
# go-sdk version go.mod requires.
build_tool() {
	local out="$conf_cache/bin/$1"
	(cd "$conf_root" && go build -o "$out" "$2") >&2 || return 1
	echo "$out"
}

# listen_port PID prints the TCP port PID listens on, waiting up to 10 s for
# it to start listening. It fails if PID exits first.
listen_port() {
	local pid=$1 deadline=$((SECONDS + 10)) f l port
	while ((SECONDS < deadline)); do
		kill -0 "$pid" 2>/dev/null || {
			echo "conformance: process $pid exited before listening" >&2
			return 1
		}
		local inodes=()
		for f in /proc/"$pid"/fd/*; do
			l=$(readlink "$f" 2>/dev/null) || continue
			[[ $l == socket:\[*\] ]] && inodes+=("${l//[^0-9]/}")
		done
		if ((${#inodes[@]} > 0)); then
			# /proc/net/tcp: "sl local_address rem_address st ... inode";
			# st 0A is LISTEN, the port is the hex after the colon.
			port=$(awk -v want=" ${inodes[*]} " '
				$4 == "0A" && index(want, " " $10 " ") { split($2, a, ":"); print a[2]; exit }
			' /proc/net/tcp /proc/net/tcp6)
			if [[ -n $port ]]; then
				echo $((16#$port))
				return 0
			fi
		fi
		sleep 0.05
	done
	echo "conformance: process $pid did not listen within 10 s" >&2
	return 1
}

# start_proxy URL starts conformance/bearerproxy in front of URL's origin,
# adding "Authorization: Bearer $BEARER_TOKEN", and sets conf_proxy_url to URL
# rewritten to go through the proxy (same path and query). The proxy runs
# until conf_cleanup. Call it directly, not in $(...): it records the pid.
start_proxy() {
	local url=$1 bin proxy fd
	if [[ ! $url =~ ^(http://[^/?#]+)(.*)$ ]]; then
		echo "conformance: $url: want http://HOST:PORT/PATH" >&2
		return 1
	fi
	local origin=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}
	if [[ -z ${BEARER_TOKEN:-} ]]; then
		echo "conformance: BEARER_TOKEN is empty" >&2
		return 1
	fi
	bin=$(build_tool bearerproxy ./conformance/bearerproxy) || return 1
	exec {fd}< <(exec "$bin" -target "$origin")
	conf_pids+=($!)
	if ! read -r -t 10 -u "$fd" proxy; then
		echo "conformance: bearerproxy did not start" >&2
		return 1
	fi
	# shellcheck disable=SC2034 # read by the scripts that source this file
	conf_proxy_url="$proxy$rest"
}

# conf_json FILE EXPR prints the JavaScript EXPR evaluated with j bound to
# FILE's JSON ("-" is stdin), or nothing when FILE does not parse (yet) or
# EXPR is null. Needs conf_node (node 22, from scripts/node22.sh).
conf_json() {
	"$conf_node" -e '
		let j;
		try { j = JSON.parse(require("fs").readFileSync(process.argv[1] === "-" ? 0 : process.argv[1], "utf8")); }
		catch { process.exit(0); }
		const v = eval(process.argv[2]);
		if (v !== undefined && v !== null) console.log(v);' "$1" "$2"
}

# mcptray_ready BIN DATA NAME UNTIL waits until `BIN status` (data dir DATA)
# shows server NAME ready and DATA/endpoint.json exists, or SECONDS reaches
# UNTIL. It fails, printing the status, if NAME ends in error or crash-loop
# or the time runs out.
mcptray_ready() {
	local bin=$1 data=$2 name=$3 until=$4 state=""
	until [[ $state == ready && -s $data/endpoint.json ]]; do
		if ((SECONDS >= until)) || [[ $state == error || $state == crash-loop ]]; then
			if [[ $state == ready ]]; then
				echo "conformance: server \"$name\" is ready but $data/endpoint.json never appeared (HTTP endpoint off?):" >&2
			else
				echo "conformance: server \"$name\" not ready (state ${state:-unknown}):" >&2
			fi
			"$bin" status --data "$data" >&2 || true
			return 1
		fi
		sleep 0.1
		state=$("$bin" status --json --data "$data" 2>/dev/null |
			conf_json - "j.servers?.find((s) => s.name === \"$name\")?.state") || true
	done
}
