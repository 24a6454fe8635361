#!/usr/bin/env bash
# package-check.sh checks what `make package` made (dist/), on this
# Debian system, as root (CI) or through sudo:
#   - the .deb: dpkg -i, then /usr/bin/mcptray --version, a `mcptray daemon`
#     on a temp config and data dir (reading the login shell's PATH, as a
#     desktop start does) until `mcptray status` answers, the built-in
#     servers' executable beside it, then stop it and dpkg -r;
#   - the .tar.gz: its install.sh into a temp prefix, the installed
#     mcptray --version, then install.sh uninstall leaves no file;
#   - make install / make uninstall into a temp PREFIX, likewise.
# Each step prints a line; a failure says which and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

t0=$SECONDS
say() { echo "package-check: $* ($((SECONDS - t0))s)"; }
fail() { echo "package-check: FAILED: $*" >&2; exit 1; }
as_root() {
	if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

deb=$(ls -t dist/mcptray_*.deb 2>/dev/null | head -1)
tgz=$(ls -t dist/mcptray-*-linux-*.tar.gz 2>/dev/null | head -1)
[[ -n $deb && -n $tgz ]] || fail "no .deb or .tar.gz in dist/ (make package makes them)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-package-check.XXXXXX")
daemon=
cleanup() {
	if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
	if dpkg-query -W mcptray >/dev/null 2>&1; then
		as_root dpkg --purge mcptray >/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The files a .deb, the tarball's install.sh and make install must hold.
want_files() { # root prefix
	for f in bin/mcptray bin/mcptray-google share/applications/io.github.mcptray.desktop \
		share/icons/hicolor/64x64/apps/io.github.mcptray.png; do
		[[ -f $1$2/$f ]] || fail "$1$2/$f is missing"
	done
}
only_dirs_left() { # dir what
	local left
	left=$(find "$1" ! -type d)
	[[ -z $left ]] || fail "$2 left: $left"
}

# The .deb.
say "dpkg -i $deb"
as_root dpkg -i "$deb" >/dev/null
want_files "" /usr
[[ -f /etc/xdg/autostart/io.github.mcptray.desktop ]] || fail "no /etc/xdg/autostart/io.github.mcptray.desktop"
desktop-file-validate /usr/share/applications/io.github.mcptray.desktop /etc/xdg/autostart/io.github.mcptray.desktop ||
	fail "desktop-file-validate on the installed entries"
/usr/bin/mcptray --version | head -1 | grep -q '^mcptray ' || fail "/usr/bin/mcptray --version"
say "$(/usr/bin/mcptray --version | head -1)"

# A daemon started as the desktop would: no terminal, $SHELL set.
export MCPTRAY_CONFIG=$tmp/config/mcp.json MCPTRAY_DATA=$tmp/data
mkdir -p "$tmp/config"
MCPTRAY_LOGIN_SHELL=on SHELL=/bin/bash setsid /usr/bin/mcptray daemon >"$tmp/daemon.log" 2>&1 </dev/null &
daemon=$!
deadline=$((SECONDS + 30))
until /usr/bin/mcptray status >"$tmp/status.txt" 2>&1; do
	kill -0 "$daemon" 2>/dev/null || fail "mcptray daemon exited: $(cat "$tmp/daemon.log")"
	((SECONDS < deadline)) || fail "mcptray status did not answer within 30 s: $(cat "$tmp/status.txt")"
	sleep 0.2
done
say "mcptray status answers"
deadline=$((SECONDS + 30))
until /usr/bin/mcptray status --json >"$tmp/status.json" && grep -q '"state": *"used"' "$tmp/status.json"; do
	((SECONDS < deadline)) || fail "the login shell's PATH is not used: $(cat "$tmp/status.json")"
	sleep 0.2
done
grep -q '"serverPath": *"/' "$tmp/status.json" || fail "status --json has no serverPath"
say "the servers' PATH, from bash -il: $(sed -n 's/^ *"serverPath": *"\(.*\)",*$/\1/p' "$tmp/status.json")"
# The built-in Google servers run mcptray-google from beside /usr/bin/mcptray.
/usr/bin/mcptray serve gcal --help >"$tmp/gcal.txt" 2>&1 || fail "mcptray serve gcal --help: $(cat "$tmp/gcal.txt")"
kill "$daemon"
wait "$daemon" || fail "mcptray daemon did not stop cleanly: $(cat "$tmp/daemon.log")"
daemon=
unset MCPTRAY_CONFIG MCPTRAY_DATA
say "mcptray daemon ran and stopped"
as_root dpkg -r mcptray >/dev/null
for f in /usr/bin/mcptray /usr/bin/mcptray-google /etc/xdg/autostart/io.github.mcptray.desktop; do
	[[ ! -e $f ]] || fail "dpkg -r left $f"
done
say "dpkg -r"

# The tarball.
mkdir -p "$tmp/tar" "$tmp/tarroot"
tar -C "$tmp/tar" -xzf "$tgz"
"$tmp"/tar/*/install.sh --prefix /opt/mcptray --destdir "$tmp/tarroot" >/dev/null
want_files "$tmp/tarroot" /opt/mcptray
"$tmp/tarroot/opt/mcptray/bin/mcptray" --version >/dev/null || fail "the tarball's mcptray --version"
"$tmp"/tar/*/install.sh uninstall --prefix /opt/mcptray --destdir "$tmp/tarroot" >/dev/null
only_dirs_left "$tmp/tarroot" "the tarball's install.sh uninstall"
say "the tarball's install.sh and uninstall"

# make install and make uninstall (the build is there already).
make -s --no-print-directory install PREFIX="$tmp/prefix" >/dev/null
want_files "" "$tmp/prefix"
grep -qx "Exec=$tmp/prefix/bin/mcptray" "$tmp/prefix/share/applications/io.github.mcptray.desktop" || fail "make install's desktop entry"
make -s --no-print-directory uninstall PREFIX="$tmp/prefix" >/dev/null
only_dirs_left "$tmp/prefix" "make uninstall"
say "make install and make uninstall: ok"
