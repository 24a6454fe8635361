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
#     An auth/* scenario (issue 35): URL answers 401 until mcptray signs
#     in. The run gets a desktop session of its own
#     (scripts/desktop-session.sh: a fresh keyring, so no token or
#     registration of an earlier scenario is reused). The entry carries
#     what the go-sdk's everything-client configures: the Client ID
#     Metadata Document URL (x-mcptray.oauth.clientMetadataUrl) and, when
#     the suite gives one in MCP_CONFORMANCE_CONTEXT, the pre-registered
#     client ("oauth": clientId, and clientSecret as ${keyring:…}, stored
#     with `mcptray secret set` through stdin). The context leaves the
#     environment before the session starts, and reaches the run inside
#     it on a pipe. The daemon's $BROWSER is
#     conformance/browser.sh, which follows the suite's auto-approving
#     /authorize back to mcptray's loopback listener. Once the server
#     waits in needs-sign-in, conformance/inbox-answer.mjs answers the
#     "Sign in to suite at HOST" request with yes (and every later one: a
#     step-up), or, with CONFORMANCE_SIGNIN=login, `mcptray auth login
#     suite` signs in; then everything-client calls the tool through
#     mcptray. A sign-in that fails ends the run at once (the server's log
#     says "sign-in:", or `auth login` fails). Last, whatever the outcome,
#     once the daemon is stopped, no file of the run (the config, the data
#     dir, the logs) may hold the suite's tokens (test-token…) or a client
#     secret: the run fails, and, with CONFORMANCE_LEAK_LOG set, appends
#     "SCENARIO: FILES" to that file.
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
secrets=() # what no file of the run may hold (auth/*: auth_no_leak)
# cleanup stops what the run started; then, in an auth/* run, whatever
# its outcome, no file of it may hold a token or a client secret.
cleanup() {
	local rc=$?
	conf_cleanup
	if [[ -n $tmp && ${#secrets[@]} -gt 0 ]] && ! auth_no_leak; then
		rc=1
	fi
	[[ -z $tmp ]] || rm -rf "$tmp"
	exit "$rc"
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
# An auth/* scenario through mcptray runs in a desktop session of its own:
# a fresh keyring for a fresh daemon. The suite's context (it may hold a
# client secret) crosses into it on a pipe (fd 3), not in the environment
# of the session's services.
if [[ $via == mcptray && $scenario == auth/* && -z ${CONFORMANCE_AUTH_SESSION:-} ]]; then
	exec 3< <(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-}")
	unset MCP_CONFORMANCE_CONTEXT
	CONFORMANCE_AUTH_SESSION=fd3 exec "$conf_root/scripts/desktop-session.sh" "$0" --via mcptray "$url"
fi
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

# auth_config adds to $entry the entry's OAuth settings, as the go-sdk's
# everything-client configures its own: the CIMD URL the suite expects,
# and the pre-registered client of MCP_CONFORMANCE_CONTEXT, whose secret
# goes to the keyring through stdin. It takes the context out of the
# environment and puts conformance/browser.sh in $BROWSER.
auth_config() {
	local context=${MCP_CONFORMANCE_CONTEXT:-} id secret oauth
	unset MCP_CONFORMANCE_CONTEXT
	if [[ ${CONFORMANCE_AUTH_SESSION:-} == fd3 ]]; then
		context=$(cat <&3)
		exec 3<&-
	fi
	export BROWSER="$conf_root/conformance/browser.sh" CONFORMANCE_BROWSER_LOG="$tmp/browser.log"
	entry=', "x-mcptray": { "oauth": { "clientMetadataUrl": "https://conformance-test.local/client-metadata.json" } }'
	secrets+=(test-token test-client-secret)
	[[ -n $context ]] || return 0
	id=$(printf '%s' "$context" | conf_json - 'j.client_id')
	[[ -n $id ]] || return 0
	if [[ ! $id =~ ^[A-Za-z0-9._:/-]+$ ]]; then
		echo "client.sh: the suite's client_id is not one this script writes into JSON" >&2
		exit 1
	fi
	oauth="\"clientId\": \"$id\""
	secret=$(printf '%s' "$context" | conf_json - 'j.client_secret')
	if [[ -n $secret ]]; then # never an empty pattern: grep -f would match every file
		secrets+=("$secret")
		if ! printf '%s\n' "$secret" | "$mcptray" secret set conformance-client-secret --data "$data" >/dev/null; then
			echo "client.sh: could not store the suite's client secret in the keyring" >&2
			exit 1
		fi
		oauth+=', "clientSecret": "${keyring:conformance-client-secret}"'
	fi
	entry=", \"oauth\": { $oauth }$entry"
}

# server_state prints the state of the server "suite" (empty when the
# daemon does not answer yet).
server_state() {
	"$mcptray" status --json --data "$data" 2>/dev/null |
		conf_json - 'j.servers?.find((s) => s.name === "suite")?.state' || true
}

# auth_sign_in waits for the server to need a sign-in, then has the person
# sign in: the inbox's request answered with yes (the watcher stays for
# the step-ups), or `mcptray auth login` with CONFORMANCE_SIGNIN=login.
# It returns once the server is ready, and fails when it ends in error,
# when the sign-in fails, or at the deadline.
auth_sign_in() {
	local state=""
	until [[ $state == needs-sign-in || $state == ready ]]; do
		if ((SECONDS >= deadline)) || [[ $state == error || $state == crash-loop ]]; then
			echo "client.sh: the server never asked for a sign-in (state ${state:-unknown})" >&2
			return 1
		fi
		sleep 0.1
		state=$(server_state)
	done
	# With auth login, the watcher starts after it: its yes to the open
	# request would start a second sign-in beside the first.
	if [[ ${CONFORMANCE_SIGNIN:-inbox} == login && $state == needs-sign-in ]]; then
		if ! "$mcptray" auth login suite --data "$data" >&2; then
			echo "client.sh: mcptray auth login suite failed" >&2
			return 1
		fi
	fi
	"$conf_node" "$conf_root/conformance/inbox-answer.mjs" "$mcptray" "$data" suite >"$tmp/inbox-answers.log" 2>&1 &
	conf_pids+=($!)
	until [[ $state == ready ]]; do
		if ((SECONDS >= deadline)) || [[ $state == error || $state == crash-loop ]]; then
			echo "client.sh: the server is not ready after the sign-in (state ${state:-unknown})" >&2
			return 1
		fi
		if grep -q '\[lifecycle\] sign-in: ' "$data/logs/suite.log" 2>/dev/null; then
			echo "client.sh: the sign-in failed (the server's log says why)" >&2
			return 1
		fi
		sleep 0.1
		state=$(server_state)
	done
}

# auth_no_leak fails when a file of the run holds one of $secrets: the
# suite's access tokens (test-token…), its registrations' client secret,
# the pre-registered client's secret. The values reach grep on a pipe,
# never in argv; the output names the files only. cleanup runs it once
# the daemon is stopped.
auth_no_leak() {
	local found
	found=$(grep -rlaF -f <(printf '%s\n' "${secrets[@]}") "$tmp" 2>/dev/null || true)
	if [[ -n $found ]]; then
		echo "client.sh: a token or client secret is in a file of the run:" >&2
		printf '  %s\n' "${found//$tmp/\$TMP}" >&2
		# The suite ignores the exit status of the scenarios where the
		# client must fail: the leak is recorded for the caller too.
		if [[ -n ${CONFORMANCE_LEAK_LOG:-} ]]; then
			echo "$scenario: ${found//$'\n'/ }" | sed "s|$tmp|\$TMP|g" >>"$CONFORMANCE_LEAK_LOG"
		fi
		return 1
	fi
}

elicitation=""
if [[ -n ${CONFORMANCE_ELICITATION:-} ]]; then
	elicitation=", \"elicitation\": \"$CONFORMANCE_ELICITATION\""
fi
entry=""
if [[ $scenario == auth/* ]]; then
	auth_config
fi
# approve off: the suite's tools carry no annotations, and the protocol is
# what it checks (the approvals have tests of their own).
cat >"$tmp/mcp.json" <<EOF
{
  "mcpServers": { "suite": { "type": "http", "url": "$url"$entry } },
  "x-mcptray": { "listen": "127.0.0.1:0", "approve": "off"$elicitation }
}
EOF
"$mcptray" daemon --config "$tmp/mcp.json" --data "$data" >"$tmp/daemon.log" 2>&1 &
conf_pids+=($!)

if [[ $scenario == auth/* ]] && ! auth_sign_in; then
	show_logs
	exit 1
fi
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
