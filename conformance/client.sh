#!/usr/bin/env bash
# The client command for `scripts/conformance.sh client`: the suite runs
# `conformance/client.sh [--via MODE] URL` with MCP_CONFORMANCE_SCENARIO set,
# where URL is its test server for that scenario. See docs/conformance.md.
#
# --via proxy: no mcptray. The go-sdk's conformance/everything-client talks
#     to URL through conformance/bearerproxy. It proves the plumbing and that
#     the proxy is transparent (SSE, Last-Event-ID, retry timing) while the
#     gateway is not there.
# --via mcptray: mcptray is the suite's client. A temp mcp.json holds one entry,
#     {"suite": {"type": "http", "url": URL}}; `mcptray daemon` connects to
#     it (the suite checks that initialize), then the go-sdk everything-client
#     plays the assistant: it calls the scenario's tool on /mcp/suite, with
#     the token from `mcptray token`, through bearerproxy. The elicitation
#     scenario's request goes where x-mcptray.elicitation says: unset (the
#     default, auto) forwards it to everything-client, which accepts with no
#     fields; CONFORMANCE_ELICITATION=local writes "local", and the request
#     must then wait in mcptray's inbox, answered here with
#     `mcptray inbox answer ID` and no field: the schema defaults must fill
#     in.
#     MCPTRAY_BIN (default bin/mcptray) names the binary.
#
# scripts/conformance.sh runs it under both suites: 0.1.16's four
# scenarios, and 0.2.0-alpha.12's requirement sets (`requirements`), where
# the suite's test server may speak 2026-07-28 only.
#
# It gives up after CONFORMANCE_CLIENT_DEADLINE seconds (default 25, under
# the suite's 30 s timeout), so nothing outlives the scenario.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

tmp=""
cleanup() {
	conf_cleanup
	[[ -z $tmp ]] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

via=proxy
if [[ ${1:-} == --via ]]; then
	via=${2:-}
	shift 2 || true
fi
if [[ $# -ne 1 || ! $via =~ ^(proxy|mcptray)$ ]]; then
	echo "usage: conformance/client.sh [--via proxy|mcptray] URL" >&2
	exit 2
fi
url=$1
scenario=${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set (the suite sets it)}
deadline=$((SECONDS + ${CONFORMANCE_CLIENT_DEADLINE:-25}))
client=$(build_tool everything-client github.com/modelcontextprotocol/go-sdk/conformance/everything-client)

# run_client URL runs everything-client (it reads MCP_CONFORMANCE_SCENARIO)
# against URL until it ends or the deadline passes, and returns its status.
# with_inbox set: answers the scenario's elicitation in mcptray's inbox and
# sets inbox_answered.
inbox_answered=""
run_client() {
	"$client" "$1" &
	local pid=$!
	conf_pids+=("$pid")
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			echo "client.sh: gave up after the deadline" >&2
			return 1
		fi
		if [[ -n ${with_inbox:-} && -z $inbox_answered ]]; then
			local id
			id=$(inbox_request_id)
			if [[ -n $id ]]; then
				"$mcptray" inbox answer "$id" --data "$data" >&2
				inbox_answered=1
			fi
		fi
		sleep 0.1
	done
	wait "$pid"
}

if [[ $via == proxy ]]; then
	BEARER_TOKEN=${BEARER_TOKEN:-proxy-run} start_proxy "$url"
	run_client "$conf_proxy_url"
	exit
fi

# --via mcptray
conf_node=$("$conf_root/scripts/node22.sh")
mcptray=${MCPTRAY_BIN:-$conf_root/bin/mcptray}
tmp=$(mktemp -d)
data="$tmp/data"

inbox_request_id() {
	"$mcptray" inbox --json --data "$data" 2>/dev/null |
		conf_json - 'j.requests?.find((r) => r.server === "suite")?.id'
}

show_logs() {
	echo "client.sh: mcptray's logs:" >&2
	cat "$tmp/daemon.log" "$data/logs/suite.log" >&2 2>/dev/null || true
}

elicitation=""
if [[ -n ${CONFORMANCE_ELICITATION:-} ]]; then
	elicitation=", \"elicitation\": \"$CONFORMANCE_ELICITATION\""
fi
# approve off: the suite's tools carry no annotations, and the protocol is
# what it checks (the approvals have tests of their own).
cat >"$tmp/mcp.json" <<EOF
{
  "mcpServers": { "suite": { "type": "http", "url": "$url" } },
  "x-mcptray": { "listen": "127.0.0.1:0", "approve": "off"$elicitation }
}
EOF
"$mcptray" daemon --config "$tmp/mcp.json" --data "$data" >"$tmp/daemon.log" 2>&1 &
conf_pids+=($!)

# Ready means mcptray initialized the suite's server and listed its tools.
if ! mcptray_ready "$mcptray" "$data" suite "$deadline"; then
	show_logs
	exit 1
fi
gateway=$(conf_json "$data/endpoint.json" 'j.url')/suite
BEARER_TOKEN=$("$mcptray" token --data "$data")
export BEARER_TOKEN
start_proxy "$gateway"
if [[ $scenario == elicitation-sep1034-client-defaults && ${CONFORMANCE_ELICITATION:-} == local ]]; then
	with_inbox=1
fi
if ! run_client "$conf_proxy_url"; then
	echo "client.sh: everything-client failed through mcptray" >&2
	show_logs
	exit 1
fi
# With "elicitation": "local" the request must wait in the inbox; had it
# gone to everything-client, the defaults came from the wrong place.
if [[ -n ${with_inbox:-} && -z $inbox_answered ]]; then
	echo "client.sh: the elicitation never showed in \`mcptray inbox --json\` (x-mcptray.elicitation is local)" >&2
	show_logs
	exit 1
fi
