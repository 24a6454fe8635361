#!/usr/bin/env bash
# Runs the official MCP conformance suite, @modelcontextprotocol/conformance
# (pinned with every dependency by conformance/package-lock.json), under node
# 22 (scripts/node22.sh). Both are installed into .cache only when missing.
# See docs/conformance.md.
#
#   scripts/conformance.sh install
#       node 22 and both suites (0.1.16, and 0.2.0-alpha.12 as npm alias
#       conformance-next), nothing else.
#   scripts/conformance.sh server [--min-passed N] URL
#       the whole server suite (--suite all, 32 scenarios) against the MCP
#       endpoint URL. With BEARER_TOKEN set, the suite goes through
#       conformance/bearerproxy, which adds "Authorization: Bearer …" (the
#       suite cannot send headers). Fails on any failed check, and when fewer
#       than N checks pass (a scenario that silently runs no check).
#   scripts/conformance.sh client CMD SCENARIO...
#       each client scenario with CMD as the client: the suite starts a test
#       server, runs `CMD URL` through sh with MCP_CONFORMANCE_SCENARIO set,
#       and checks what the server saw. Fails if any scenario fails.
#   scripts/conformance.sh reference
#       the go-sdk's own conformance programs, no mcptray: the server suite
#       against conformance/everything-server (directly and through
#       bearerproxy) and the client scenarios with conformance/everything-client
#       (directly and through bearerproxy): the harness's own check.
#   scripts/conformance.sh mcptray
#       issue 3's run, with 0.1.16: the server suite against /mcp/everything
#       of a `mcptray daemon` (MCPTRAY_BIN, default bin/mcptray) fronting the
#       everything-server over stdio, with the token from `mcptray token`;
#       then the client scenarios with mcptray as the client
#       (conformance/client.sh --via mcptray), and the elicitation one again
#       with x-mcptray.elicitation local; then `requirements`. This is what
#       `make conformance` runs. Needs a keyring: run it inside
#       scripts/desktop-session.sh.
#   scripts/conformance.sh requirements
#       issue 32's run, with 0.2.0-alpha.12: the server and client scenarios
#       of its frozen requirement sets (--requirements 2025-11-25 and
#       2026-07-28), against the go-sdk's everything-server and
#       everything-client direct (the baseline; the whole server set must
#       pass) and through mcptray (a daemon fronting the everything-server
#       over stdio; mcptray as the client of the suite's test server, via
#       conformance/client.sh), with conformance/inbox-answer.mjs answering
#       whatever the gateway puts in the inbox meanwhile. The auth/* client
#       scenarios (issue 35) run the same way: a fresh daemon signs in to
#       the suite's server through its inbox and $BROWSER
#       (conformance/client.sh, conformance/browser.sh). Then
#       conformance/gapcheck: fails on a scenario that passes direct and
#       fails through mcptray unless conformance/known-gaps.txt lists it,
#       and on a listed one that passes. Needs a keyring, like mcptray.
#
# Results (checks.json per scenario, the suite's full output) go to
# $MCPTRAY_ARTIFACTS/conformance (default artifacts/conformance). Exit codes:
# 0 all passed, 1 a failure, 2 usage.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../conformance/lib.sh
source "$(dirname "$0")/../conformance/lib.sh"
trap conf_cleanup EXIT

results="${MCPTRAY_ARTIFACTS:-$conf_root/artifacts}/conformance"
# The client scenarios mcptray must pass (issue 3), and how many checks each
# passes with the go-sdk's client. The suite alone lets a client that does
# nothing pass `initialize` (0/0 checks), so fewer passed checks fail here.
client_scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
declare -A client_min_passed=(
	[initialize]=1 [tools_call]=1 [elicitation-sep1034-client-defaults]=5 [sse-retry]=3
)
sdk=github.com/modelcontextprotocol/go-sdk

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

# install_suite sets conf_node, conf_suite (0.1.16) and conf_next
# (0.2.0-alpha.12), installing what is missing.
install_suite() {
	conf_node=$("$conf_root/scripts/node22.sh") || return 1
	local dir="$conf_cache/conformance" want tmp
	want=$(cat "$conf_root/conformance/package.json" "$conf_root/conformance/package-lock.json" | cksum)
	conf_suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
	conf_next="$dir/node_modules/conformance-next/dist/index.js"
	if [[ -f $conf_suite && -f $conf_next && "$(cat "$dir/.installed" 2>/dev/null)" == "$want" ]]; then
		return 0
	fi
	# Install beside the target, then swap: never a half-filled folder.
	tmp="$dir.tmp.$$"
	rm -rf "$tmp"
	mkdir -p "$tmp" || return 1
	cp "$conf_root/conformance/package.json" "$conf_root/conformance/package-lock.json" "$tmp/" || return 1
	echo "conformance: installing the suite into $dir" >&2
	if ! (cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >&2); then
		rm -rf "$tmp"
		return 1
	fi
	echo "$want" >"$tmp/.installed" || return 1
	rm -rf "$dir"
	mv "$tmp" "$dir" || return 1
}

# print_failures DIR prints every failed or warning check (warnings fail the
# client suite too) from the checks.json files under DIR.
print_failures() {
	"$conf_node" -e '
		const fs = require("fs"), path = require("path");
		const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
			e.isDirectory() ? walk(path.join(d, e.name)) : e.name === "checks.json" ? [path.join(d, e.name)] : []);
		for (const f of walk(process.argv[1]).sort()) {
			const scenario = path.relative(process.argv[1], path.dirname(f)).replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
			for (const c of JSON.parse(fs.readFileSync(f, "utf8"))) {
				if (c.status === "FAILURE" || c.status === "WARNING") {
					console.log(`  ${scenario}: ${c.status} ${c.name}: ${c.errorMessage || c.description}`);
				}
			}
		}' "$1"
}

# cmd_server [--min-passed N] URL; $label names the results folder.
cmd_server() {
	local min=0
	while [[ $# -gt 0 ]]; do
		case $1 in
		--min-passed)
			[[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage
			min=$2
			shift 2
			;;
		-*) usage ;;
		*) break ;;
		esac
	done
	[[ $# -eq 1 ]] || usage
	local url=$1 out="$results/${label:-server}" rc=0 passed
	# Called as `cmd_server … || rc=1`, which turns off set -e in here: check.
	install_suite || return 1
	if [[ -n ${BEARER_TOKEN:-} ]]; then
		start_proxy "$url" || return 1
		echo "conformance: $conf_proxy_url (bearerproxy) -> $url"
		url=$conf_proxy_url
	fi
	rm -rf "$out"
	mkdir -p "$out" || return 1
	"$conf_node" "$conf_suite" server --url "$url" --suite all -o "$out" >"$out/suite.log" 2>&1 || rc=$?
	if grep -q '^=== SUMMARY ===' "$out/suite.log"; then
		sed -n '/^=== SUMMARY ===/,$p' "$out/suite.log"
	else
		cat "$out/suite.log"
	fi
	print_failures "$out"
	passed=$(sed -n 's/^Total: \([0-9]*\) passed.*/\1/p' "$out/suite.log")
	if ((rc == 0 && ${passed:-0} < min)); then
		echo "conformance: ${passed:-0} checks passed, want at least $min"
		rc=1
	fi
	echo "conformance: server suite $([[ $rc == 0 ]] && echo passed || echo FAILED) ($url; details in $out)"
	return "$rc"
}

# cmd_client CMD SCENARIO...; $label names the results folder.
cmd_client() {
	[[ $# -ge 2 ]] || usage
	local cmd=$1 out="$results/${label:-client}" s log rc line passed want failed=()
	shift
	install_suite || return 1
	# Build what client.sh runs now, so the suite's timeout does not count it.
	build_tool everything-client "$sdk/conformance/everything-client" >/dev/null || return 1
	build_tool bearerproxy ./conformance/bearerproxy >/dev/null || return 1
	rm -rf "$out"
	mkdir -p "$out" || return 1
	for s in "$@"; do
		log="$out/${s//\//_}.log"
		rc=0
		"$conf_node" "$conf_suite" client --command "$cmd" --scenario "$s" \
			--timeout "${CONFORMANCE_TIMEOUT_MS:-30000}" -o "$out" >"$log" 2>&1 || rc=$?
		line=$(grep -m1 '^Passed: ' "$log" || echo "no result")
		passed=$(sed -n 's/^Passed: \([0-9]*\)\/.*/\1/p' "$log" | head -1)
		want=${client_min_passed[$s]:-1}
		if [[ $rc == 0 ]] && ((${passed:-0} < want)); then
			line="$line; want at least $want passed"
			rc=1
		fi
		if [[ $rc == 0 ]]; then
			echo "✓ $s: $line"
		else
			echo "✗ $s: $line"
			sed 's/^/    /' "$log"
			failed+=("$s")
		fi
	done
	if ((${#failed[@]} > 0)); then
		echo "conformance: client scenarios FAILED: ${failed[*]} (CMD: $cmd; details in $out)"
		return 1
	fi
	echo "conformance: client scenarios passed: $* (CMD: $cmd)"
}

cmd_reference() {
	[[ $# -eq 0 ]] || usage
	local server client port rc=0
	server=$(build_tool everything-server "$sdk/conformance/everything-server")
	client=$(build_tool everything-client "$sdk/conformance/everything-client")
	mkdir -p "$results"
	# Stateful: the sampling and elicitation scenarios need a session.
	"$server" -http=127.0.0.1:0 -stateless=false 2>"$results/everything-server.log" &
	conf_pids+=($!)
	port=$(listen_port $!)
	local url="http://127.0.0.1:$port/mcp"

	echo "== server suite: go-sdk everything-server, direct"
	label=server-direct cmd_server --min-passed 44 "$url" || rc=1
	echo
	echo "== server suite: go-sdk everything-server through bearerproxy"
	BEARER_TOKEN=reference-run label=server-proxy cmd_server --min-passed 44 "$url" || rc=1
	echo
	echo "== client scenarios: go-sdk everything-client, direct"
	label=client-direct cmd_client "$client" "${client_scenarios[@]}" || rc=1
	echo
	echo "== client scenarios: go-sdk everything-client through bearerproxy"
	label=client-proxy cmd_client "$conf_root/conformance/client.sh --via proxy" "${client_scenarios[@]}" || rc=1
	return "$rc"
}

# cmd_mcptray is issue 3's run, with mcptray in the middle, then issue 32's
# (cmd_requirements). `make conformance` runs it inside
# scripts/desktop-session.sh for the keyring.
cmd_mcptray() {
	[[ $# -eq 0 ]] || usage
	local bin=${MCPTRAY_BIN:-$conf_root/bin/mcptray} server tmp data url rc=0
	install_suite
	server=$(build_tool everything-server "$sdk/conformance/everything-server")
	tmp=$(mktemp -d)
	data="$tmp/data"
	mkdir -p "$results"
	# The everything-server as a stdio server (no -http flag). Its tools
	# carry no annotations, so under the default approve: destructive each
	# call would wait for the person: the suite checks the protocol, the
	# approvals have tests of their own (cli TestApprovalFromCLI).
	cat >"$tmp/mcp.json" <<EOF
{
  "mcpServers": { "everything": { "command": "$server" } },
  "x-mcptray": { "listen": "127.0.0.1:0", "approve": "off" }
}
EOF
	"$bin" daemon --config "$tmp/mcp.json" --data "$data" >"$results/mcptray-daemon.log" 2>&1 &
	conf_pids+=($!)
	if mcptray_ready "$bin" "$data" everything $((SECONDS + 60)); then
		url="$(conf_json "$data/endpoint.json" 'j.url')/everything"
		echo "== server suite: mcptray at $url in front of the go-sdk everything-server"
		BEARER_TOKEN=$("$bin" token --data "$data") label=mcptray-server \
			cmd_server --min-passed 44 "$url" || rc=1
	else
		rc=1
	fi
	cp "$data/logs/everything.log" "$results/mcptray-everything.log" 2>/dev/null || true
	conf_cleanup
	rm -rf "$tmp"

	echo
	echo "== client scenarios: mcptray as the client (default config: the elicitation goes to the assistant)"
	label=mcptray-client cmd_client "$conf_root/conformance/client.sh --via mcptray" \
		"${client_scenarios[@]}" || rc=1
	# The inbox (`mcptray inbox`, issue #4) answers this one; it runs once
	# mcptray has an inbox to answer from.
	if "$bin" inbox --help >/dev/null 2>&1; then
		echo
		echo "== client scenario: mcptray as the client, x-mcptray.elicitation local (the inbox answers)"
		CONFORMANCE_ELICITATION=local label=mcptray-client-local \
			cmd_client "$conf_root/conformance/client.sh --via mcptray" \
			elicitation-sep1034-client-defaults || rc=1
	else
		echo "== skipped: the elicitation-local run needs \`mcptray inbox\` (issue #4)"
	fi
	echo
	echo "=== the requirement sets of 0.2.0-alpha.12 (issue 32)"
	cmd_requirements || rc=1
	return "$rc"
}

# The revisions whose requirement sets the 0.2.0-alpha.12 suite runs.
revisions=(2025-11-25 2026-07-28)

# set_scenarios LEG REVISION prints the scenarios of that leg (server or
# client) in the revision's frozen requirement set, one a line, as the
# suite lists them.
set_scenarios() {
	local heading
	[[ $1 == server ]] && heading='Server scenarios' || heading='Client scenarios'
	"$conf_node" "$conf_next" list --requirements "$2" |
		awk -v h="$heading" 'index($0, h) == 1 { on = 1; next } on && /^  - / { print $2; next } on { exit }'
}

# server_set REVISION MODE URL runs the suite's server scenarios of
# REVISION's requirement set against URL into $req_out/server-REVISION/MODE/
# and writes MODE.txt there ("pass NAME"/"fail NAME" per scored scenario,
# from the suite's summary; scenarios it runs but does not score, such as
# extensions, are left out). Fails if the suite did not finish.
server_set() {
	local rev=$1 mode=$2 url=$3 dir="$req_out/server-$1" rc=0
	mkdir -p "$dir"
	"$conf_node" "$conf_next" server --url "$url" --requirements "$rev" \
		--timeout "${CONFORMANCE_TIMEOUT_MS:-20000}" -o "$dir/$mode" >"$dir/$mode.log" 2>&1 || rc=$?
	# The summary: "✓ NAME: N passed, M failed" per scenario up to "Total:",
	# then "Not scored for …" and "  ✓ NAME (reason)" per unscored one.
	awk '
		/^=== SUMMARY ===/ { on = 1; next }
		on == 1 && /^Total: / { on = 2; next }
		on == 1 && /^(✓|✗) [^ ]+: [0-9]+ passed, [0-9]+ failed$/ {
			name = substr($2, 1, length($2) - 1); order[++n] = name; ok[name] = ($1 == "✓") }
		on == 2 && /^  (✓|✗) [^ ]+ \(/ { unscored[$2] = 1 }
		END { for (i = 1; i <= n; i++) if (!(order[i] in unscored)) print (ok[order[i]] ? "pass " : "fail ") order[i] }
	' "$dir/$mode.log" >"$dir/$mode.txt"
	if ! grep -q '^Total: ' "$dir/$mode.log"; then
		echo "conformance: the suite did not finish (server $rev, $mode; exit $rc):"
		tail -20 "$dir/$mode.log"
		return 1
	fi
	echo "server $rev, $mode: $(grep -c '^pass ' "$dir/$mode.txt")/$(wc -l <"$dir/$mode.txt") scenarios pass ($url)"
}

# client_set REVISION MODE CMD SCENARIO... runs each client scenario with
# CMD as the client (at REVISION's wire) into $req_out/client-REVISION/ and
# writes MODE.txt. A scenario passes when the suite passes it with at least
# one passed check (a client that does nothing passes some with 0/0).
client_set() {
	local rev=$1 mode=$2 cmd=$3 dir="$req_out/client-$1" s log rc passed
	shift 3
	mkdir -p "$dir/$mode"
	: >"$dir/$mode.txt"
	for s in "$@"; do
		log="$dir/$mode/${s//\//_}.log"
		rc=0
		"$conf_node" "$conf_next" client --command "$cmd" --scenario "$s" --spec-version "$rev" \
			--timeout "${CONFORMANCE_TIMEOUT_MS:-30000}" -o "$dir/$mode" >"$log" 2>&1 || rc=$?
		passed=$(sed -n 's/^Passed: \([0-9]*\)\/.*/\1/p' "$log" | head -1)
		if [[ $rc == 0 ]] && ((${passed:-0} > 0)); then
			echo "pass $s" >>"$dir/$mode.txt"
		else
			echo "fail $s" >>"$dir/$mode.txt"
		fi
	done
	echo "client $rev, $mode: $(grep -c '^pass ' "$dir/$mode.txt")/$# scenarios pass"
}

# cmd_requirements is issue 32's run: the 0.2.0-alpha.12 suite's frozen
# requirement sets (--requirements 2025-11-25 and 2026-07-28), each leg
# against the go-sdk's reference programs direct (the baseline) and through
# mcptray, then conformance/gapcheck: a scenario that passes direct but
# fails through mcptray must be listed in conformance/known-gaps.txt, and a
# listed one must still fail. Needs a keyring (scripts/desktop-session.sh).
cmd_requirements() {
	[[ $# -eq 0 ]] || usage
	local bin=${MCPTRAY_BIN:-$conf_root/bin/mcptray} server client gapcheck tmp data url rev pid port s rc=0
	local -a scenarios
	install_suite || return 1
	server=$(build_tool everything-server "$sdk/conformance/everything-server") || return 1
	client=$(build_tool everything-client "$sdk/conformance/everything-client") || return 1
	gapcheck=$(build_tool gapcheck ./conformance/gapcheck) || return 1
	build_tool bearerproxy ./conformance/bearerproxy >/dev/null || return 1
	req_out="$results/requirements"
	rm -rf "$req_out"
	mkdir -p "$req_out"

	echo "== server scenarios, the go-sdk everything-server direct (the baseline)"
	# The 2025-11-25 set needs sessions (sampling, elicitation); go-sdk
	# serves 2026-07-28 over HTTP only without them.
	for rev in "${revisions[@]}"; do
		"$server" -http=127.0.0.1:0 -stateless=$([[ $rev == 2025-11-25 ]] && echo false || echo true) \
			2>"$req_out/everything-server-$rev.log" &
		pid=$!
		conf_pids+=("$pid")
		port=$(listen_port "$pid") || return 1
		server_set "$rev" direct "http://127.0.0.1:$port/mcp" || rc=1
		if grep -q '^fail ' "$req_out/server-$rev/direct.txt"; then
			echo "conformance: the baseline fails (server $rev, direct): $(sed -n 's/^fail //p' "$req_out/server-$rev/direct.txt" | tr '\n' ' ')"
			rc=1
		fi
	done
	conf_cleanup

	echo
	echo "== server scenarios through mcptray (/mcp/everything, the everything-server over stdio)"
	tmp=$(mktemp -d)
	data="$tmp/data"
	cat >"$tmp/mcp.json" <<JSON
{
  "mcpServers": { "everything": { "command": "$server" } },
  "x-mcptray": { "listen": "127.0.0.1:0", "approve": "off" }
}
JSON
	"$bin" daemon --config "$tmp/mcp.json" --data "$data" >"$req_out/mcptray-daemon.log" 2>&1 &
	conf_pids+=($!)
	if mcptray_ready "$bin" "$data" everything $((SECONDS + 60)); then
		url="$(conf_json "$data/endpoint.json" 'j.url')/everything"
		BEARER_TOKEN=$("$bin" token --data "$data") start_proxy "$url" || rc=1
		# Where the gateway asks the person (the inbox) instead of relaying
		# to the suite, the inbox must be answered.
		"$conf_node" "$conf_root/conformance/inbox-answer.mjs" "$bin" "$data" everything >"$req_out/inbox-answers.log" 2>&1 &
		conf_pids+=($!)
		for rev in "${revisions[@]}"; do
			server_set "$rev" mcptray "$conf_proxy_url" || rc=1
		done
		echo "the inbox answered $(grep -c '^answered ' "$req_out/inbox-answers.log") request(s) (details in $req_out/inbox-answers.log)"
	else
		rc=1
	fi
	cp "$data/logs/everything.log" "$req_out/mcptray-everything.log" 2>/dev/null || true
	conf_cleanup
	rm -rf "$tmp"

	echo
	echo "== client scenarios: the go-sdk everything-client direct (the baseline), then mcptray as the client"
	# The auth/* ones too (issue 35): through mcptray, each in a desktop
	# session of its own, signed in through the inbox (conformance/client.sh).
	for rev in "${revisions[@]}"; do
		mapfile -t scenarios < <(set_scenarios client "$rev")
		client_set "$rev" direct "$client" "${scenarios[@]}" || rc=1
		CONFORMANCE_LEAK_LOG="$req_out/leaks.txt" \
			client_set "$rev" mcptray "$conf_root/conformance/client.sh --via mcptray" "${scenarios[@]}" || rc=1
		echo "client $rev: $(grep -c '^pass auth/' "$req_out/client-$rev/mcptray.txt")/$(grep -c ' auth/' "$req_out/client-$rev/mcptray.txt") auth/* scenarios pass through mcptray"
	done
	# A token or client secret in a file fails the run, even in a scenario
	# whose client must fail (the suite ignores its exit status there).
	if [[ -s $req_out/leaks.txt ]]; then
		echo "conformance: a token or client secret was left in a file (files named, never the value):"
		sed 's/^/  /' "$req_out/leaks.txt"
		rc=1
	fi

	echo
	echo "== scenarios that pass direct but fail through mcptray, against conformance/known-gaps.txt"
	"$gapcheck" -gaps "$conf_root/conformance/known-gaps.txt" "$req_out" >"$req_out/summary.md" 2>&1 || rc=1
	cat "$req_out/summary.md"
	return "$rc"
}

[[ $# -ge 1 ]] || usage
sub=$1
shift
case $sub in
install)
	[[ $# -eq 0 ]] || usage
	install_suite
	echo "$conf_node $conf_suite"
	echo "$conf_node $conf_next"
	;;
server) cmd_server "$@" ;;
client) cmd_client "$@" ;;
reference) cmd_reference "$@" ;;
mcptray) cmd_mcptray "$@" ;;
requirements) cmd_requirements "$@" ;;
-h | --help | help) usage ;;
*) usage ;;
esac
