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
