#!/usr/bin/env bash
# The person's browser for the auth/* client scenarios (docs/conformance.md):
# conformance/client.sh puts it in $BROWSER for the mcptray daemon, which
# opens a sign-in's address with it (app/openurl.go: the URL is the last
# argument).
#
#   conformance/browser.sh URL
#
# The suite's authorization server approves at once: its /authorize answers
# with a redirect to the client's redirect_uri, carrying the code and the
# state. This script GETs URL without following it, and then GETs the
# redirect's Location, which must be a loopback address (127.0.0.1,
# localhost or [::1]): mcptray's sign-in listener. It follows nothing else.
# The Location (it carries the code) goes to curl on stdin, never in argv.
#
# With CONFORMANCE_BROWSER_LOG set, it appends one line per visit to that
# file: the hosts and the HTTP statuses, never a URL's path or query (they
# carry the code and the state). Exit 0 when the listener answered, 1
# otherwise, 2 on bad usage.
set -euo pipefail

if [[ $# -ne 1 || ! $1 =~ ^https?:// ]]; then
	echo "usage: conformance/browser.sh URL" >&2
	exit 2
fi
log=${CONFORMANCE_BROWSER_LOG:-/dev/null}

# host_of URL prints URL's scheme, host and port: what is safe to log.
host_of() {
	[[ $1 =~ ^(https?://[^/?#]+) ]] && echo "${BASH_REMATCH[1]}"
}

say() {
	echo "$(date -u +%H:%M:%S.%N | cut -c1-12) $*" >>"$log"
}

out=$(curl -sS -o /dev/null --max-time 10 -w '%{http_code} %{redirect_url}' "$1") || {
	say "authorize $(host_of "$1"): no answer"
	exit 1
}
code=${out%% *}
location=${out#* }
if [[ ! $code =~ ^30[1-8]$ || -z $location ]]; then
	say "authorize $(host_of "$1"): HTTP $code, no redirect"
	exit 1
fi
if [[ ! $location =~ ^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?/ ]]; then
	say "authorize $(host_of "$1"): HTTP $code to $(host_of "$location"), not a loopback address: not followed"
	exit 1
fi
if [[ $location == *[\\\"[:cntrl:]]* ]]; then
	say "authorize $(host_of "$1"): a Location curl cannot be given: not followed"
	exit 1
fi
back=$(printf 'url = "%s"\n' "$location" | curl -sS -o /dev/null --max-time 10 -w '%{http_code}' -K -) || {
	say "authorize $(host_of "$1"): HTTP $code; callback $(host_of "$location"): no answer"
	exit 1
}
say "authorize $(host_of "$1"): HTTP $code; callback $(host_of "$location"): HTTP $back"
