#!/usr/bin/env bash
# desktop-session.sh CMD [ARG...] runs CMD inside a private, real desktop
# session, the way mcptray meets one on a laptop:
#
#   - an X server (Xvfb, 1280x1024x24, on the first free display, no TCP);
#   - a private D-Bus session bus;
#   - a Secret Service (gnome-keyring-daemon), unlocked with a throwaway
#     password, keeping its keyrings in a temp dir;
#   - a notification daemon (dunst) owning org.freedesktop.Notifications.
#
# CMD sees DISPLAY, DBUS_SESSION_BUS_ADDRESS, GNOME_KEYRING_CONTROL, a temp
# XDG_RUNTIME_DIR, LANG=en_US.UTF-8 (C.UTF-8 if that locale is missing) and
# MCPTRAY_TEST_SESSION=1. HOME and the Go caches are left alone.
#
# Every service is started in its own process group and the whole group is
# ended when CMD ends, however it ends; the exit status is CMD's. Needs no TTY
# and no stdin, and works as root. scripts/deps.sh installs what it uses.
set -euo pipefail

if (($# == 0)); then
	echo "usage: $0 CMD [ARG...]" >&2
	exit 2
fi

session_dir=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-session.XXXXXX")
pgids=() # process groups to end, in start order

cleanup() {
	local i watchdog
	((${#pgids[@]} > 0)) || { rm -rf "$session_dir"; return; }
	# Newest first: dunst and the keyring before the bus, the bus before X.
	for ((i = ${#pgids[@]} - 1; i >= 0; i--)); do
		kill -TERM -- "-${pgids[i]}" 2>/dev/null || true
	done
	# Each group's leader is our child: wait for them, with a watchdog that
	# kills whatever still runs after 3 s; then kill what is left in the groups.
	(
		trap 'kill "${timer-}" 2>/dev/null; exit 0' TERM # TERM may come before timer is set
		sleep 3 &
		timer=$!
		wait "$timer"
		for pg in "${pgids[@]}"; do kill -KILL -- "-$pg" 2>/dev/null || true; done
	) &
	watchdog=$!
	wait "${pgids[@]}" 2>/dev/null || true
	kill "$watchdog" 2>/dev/null || true
	for pg in "${pgids[@]}"; do kill -KILL -- "-$pg" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$session_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

fail() {
	echo "desktop-session: $*" >&2
	exit 1
}

# wait_for DESCRIPTION COMMAND...: polls COMMAND until it succeeds, for at most
# 10 seconds.
wait_for() {
	local what=$1
	shift
	local deadline=$((SECONDS + 10))
	until "$@" 2>/dev/null; do
		((SECONDS < deadline)) || fail "timed out waiting for $what"
		sleep 0.05
	done
}

# start NAME COMMAND...: starts COMMAND in the background as the leader of a
# new process group, logging to the session dir; sets $started_pid.
start() {
	local name=$1
	shift
	setsid "$@" >"$session_dir/$name.log" 2>&1 </dev/null &
	started_pid=$!
	pgids+=("$started_pid")
}

for tool in Xvfb dbus-daemon dbus-send gnome-keyring-daemon dunst setsid; do
	command -v "$tool" >/dev/null || fail "$tool is missing (run scripts/deps.sh)"
done

export XDG_RUNTIME_DIR=$session_dir/runtime
mkdir -m 0700 "$XDG_RUNTIME_DIR"

# X: -displayfd makes Xvfb pick a free display and write its number once it
# accepts connections.
displayfile=$session_dir/display
setsid Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp \
	3>"$displayfile" >"$session_dir/xvfb.log" 2>&1 </dev/null &
pgids+=("$!")
xvfb_pid=$!
display_ready() {
	kill -0 "$xvfb_pid" || fail "Xvfb exited: $(tail -n 5 "$session_dir/xvfb.log")"
	# read fails until the whole line, newline included, is there.
	read -r display_number <"$displayfile"
}
wait_for "Xvfb" display_ready
export DISPLAY=:$display_number

# D-Bus: a session bus of our own at a socket in XDG_RUNTIME_DIR.
bus=$XDG_RUNTIME_DIR/bus
start dbus dbus-daemon --session --nofork --nopidfile --address="unix:path=$bus"
export DBUS_SESSION_BUS_ADDRESS=unix:path=$bus
unset DBUS_SESSION_BUS_PID DBUS_SESSION_BUS_WINDOWID WAYLAND_DISPLAY
bus_ready() {
	dbus-send --session --dest=org.freedesktop.DBus --type=method_call \
		/org/freedesktop/DBus org.freedesktop.DBus.GetId >/dev/null
}
wait_for "the session bus" bus_ready

has_owner() {
	dbus-send --session --print-reply --dest=org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "string:$1" |
		grep -q 'boolean true'
}

# Secret Service: unlocked with a throwaway password; its keyrings live in the
# session dir (a keyring in the real HOME would not open with this password).
keyring_out=$session_dir/keyring.env
mkdir -p "$session_dir/data"
setsid env XDG_DATA_HOME="$session_dir/data" \
	gnome-keyring-daemon --foreground --unlock --components=secrets \
	--control-directory="$XDG_RUNTIME_DIR/keyring" \
	< <(head -c 24 /dev/urandom | base64) >"$keyring_out" 2>"$session_dir/keyring.log" &
pgids+=("$!")
wait_for "the Secret Service (gnome-keyring-daemon)" has_owner org.freedesktop.secrets
while IFS='=' read -r key value; do
	[[ $key == GNOME_KEYRING_CONTROL || $key == SSH_AUTH_SOCK ]] && export "$key=$value"
done <"$keyring_out"
export GNOME_KEYRING_CONTROL=${GNOME_KEYRING_CONTROL:-$XDG_RUNTIME_DIR/keyring}

# Notifications: dunst with its built-in defaults (no user config), except
# what lets tests count what dunst has shown or holds: a long history (the
# default 20 stops the count growing in a long run), duplicates not stacked
# into the one shown, and no idle pause (with no input, Xvfb looks idle, and
# dunst would keep every notification on screen).
printf '[global]\n    history_length = 10000\n    stack_duplicates = false\n    idle_threshold = 0\n' \
	>"$session_dir/dunstrc"
start dunst dunst -config "$session_dir/dunstrc"
wait_for "the notification daemon (dunst)" has_owner org.freedesktop.Notifications

# The pointer starts at the screen's centre, where new windows open. Fyne
# 2.7.1 dereferences a nil window when a pointer motion over a text field
# is handled while that window closes (window.go processMouseMoved after
# Close); a test that quits the app right after its window appeared under
# the pointer could crash it that way. Park the pointer in a corner — now,
# while dunst holds a connection: Xvfb resets (pointer back in the centre)
# whenever its last client leaves.
if command -v xdotool >/dev/null; then
	xdotool mousemove 1279 1023 || true
fi

# Locale: Fyne wants a real one; C.UTF-8 only if en_US.UTF-8 is not installed.
unset LC_ALL LANGUAGE
if locale -a 2>/dev/null | grep -qix 'en_US\.utf-\?8'; then
	export LANG=en_US.UTF-8
else
	echo "desktop-session: en_US.UTF-8 locale missing (run scripts/deps.sh); using C.UTF-8" >&2
	export LANG=C.UTF-8
fi
export MCPTRAY_TEST_SESSION=1

# CMD runs in the background (keeping our stdin) so that a signal to this
# script is handled at once: CMD gets SIGTERM, then everything else ends.
on_signal() {
	if [[ -n ${cmd_pid:-} ]]; then
		kill -TERM "$cmd_pid" 2>/dev/null || true
		wait "$cmd_pid" 2>/dev/null || true
	fi
	exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM HUP

"$@" <&0 &
cmd_pid=$!
status=0
wait "$cmd_pid" || status=$?
cmd_pid=
exit "$status"
