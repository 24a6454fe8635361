#!/usr/bin/env bash
# deps.sh installs what `make run` and `make test` need on a Debian or Ubuntu
# machine, and only what is missing. It is quiet and fast (well under a
# second) when everything is already there, so make runs it every time.
# When it installs, it says what and shows apt-get's progress every 10 s.
#
# What it installs:
#   - a C toolchain and the X11/GL headers Fyne's cgo build needs;
#   - the headless desktop the tests run in (scripts/desktop-session.sh):
#     Xvfb, D-Bus, gnome-keyring, dunst, ImageMagick, xdotool, xfce4-panel;
#   - openssh-server and sudo: the SSH server's tests run a real sshd on
#     127.0.0.1 (scripts/sshd-test.sh; not started as a service);
#   - node and npm (end-to-end tests run real MCP servers from npm), unless
#     `node` and `npm` are already on PATH (e.g. a nodesource or /usr/local
#     install);
#   - desktop-file-utils (desktop-file-validate, for the packages' desktop
#     entries);
#   - Windows builds and their tests (scripts/wine.sh, make build-windows,
#     make package-windows): wine64 (Wine 8; its loader is not on PATH),
#     the mingw C cross-compiler gcc-mingw-w64-x86-64 (the tray app's cgo
#     and Wine's ProcessPrng shim), and wixl and msitools (msiinfo) to
#     build and check the MSI, zip for the other package. On a machine with the rest already there: ≈ 256 MB to download
#     (libwine 100 MB, mingw's two gcc flavours 88 MB), ≈ 1.4 GB installed;
#   - the en_US.UTF-8 locale (Fyne logs a locale error under C.UTF-8);
#   - Go, only if no `go` is found: Debian's golang-go. go.mod asks for Go
#     1.26, so that older go must fetch the newer toolchain itself
#     (GOTOOLCHAIN=auto, the default since Go 1.21). A golang-go older than
#     1.21 (Debian 12 ships 1.19) cannot; install Go 1.26 from the official
#     release archive into /usr/local/go instead.
#
# It runs apt-get as root, or through sudo when run by another user.
set -euo pipefail

packages=(
	# building Fyne (cgo + GLFW)
	gcc libc6-dev pkg-config libgl-dev libx11-dev libxcursor-dev libxrandr-dev
	libxinerama-dev libxi-dev libxxf86vm-dev
	# the private desktop session tests run in
	xvfb xauth libgl1-mesa-dri dbus dbus-bin libglib2.0-bin gnome-keyring
	libsecret-tools dunst imagemagick xdotool ca-certificates locales
	# a real sshd on 127.0.0.1 for the SSH server's end-to-end tests
	openssh-server sudo
	# a real tray host for the UI's tests: its notification area shows the
	# tray icon and opens the tray menu (ui/trayhost_test.go)
	xfce4-panel
	# desktop-file-validate: make package and the install test check the
	# desktop entries with it
	desktop-file-utils
	# Windows: the Wine harness, the mingw cgo cross-compiler, wixl/msiinfo
	wine64 gcc-mingw-w64-x86-64 msitools wixl zip
)

# A go outside PATH (e.g. /usr/local/go when sudo resets PATH) still counts.
if ! command -v go >/dev/null 2>&1 && [[ ! -x /usr/local/go/bin/go ]]; then
	packages+=(golang-go)
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	packages+=(nodejs npm)
fi

# One dpkg-query for all of them: it prints a line per known package (unknown
# ones only complain on stderr).
declare -A installed=()
while read -r name status; do
	[[ $status == "install ok installed" ]] && installed[${name%%:*}]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
	[[ -n ${installed[$p]:-} ]] || missing+=("$p")
done

have_locale() {
	locale -a 2>/dev/null | grep -qix 'en_US\.utf-\?8'
}

as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "deps.sh: need root (or sudo) to run: $*" >&2
		exit 1
	fi
}

# apt_progress reads apt-get install's output and writes a line every
# 10 s or so: how many packages are downloaded and set up, of how many
# (the named ones and what they pull in). All of apt's output is kept in
# $apt_log, to be shown if it fails.
apt_progress() {
	local total=? got=0 set_up=0 last=$SECONDS line
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$apt_log"
		case $line in
		*" newly installed,"*)
			total=${line#*upgraded, }
			total=${total%% newly installed*}
			echo "deps.sh: apt-get: $total packages to download and set up" >&2
			;;
		Get:*) got=$((got + 1)) ;;
		"Setting up "*) set_up=$((set_up + 1)) ;;
		esac
		if ((SECONDS - last >= 10)); then
			last=$SECONDS
			echo "deps.sh: apt-get: $got of $total downloaded, $set_up set up ($((SECONDS - t0))s)" >&2
		fi
	done
}

if ((${#missing[@]} > 0)); then
	t0=$SECONDS
	echo "deps.sh: installing ${#missing[@]} packages with apt-get: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt_log=$(mktemp "${TMPDIR:-/tmp}/deps-apt.XXXXXX")
	trap 'rm -f "$apt_log"' EXIT
	echo "deps.sh: apt-get update" >&2
	as_root apt-get update -qq
	if ! as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends --no-upgrade "${missing[@]}" 2>&1 | apt_progress; then
		cat "$apt_log" >&2
		echo "deps.sh: apt-get install failed (its output above)" >&2
		exit 1
	fi
	echo "deps.sh: installed ${#missing[@]} packages and what they need ($((SECONDS - t0))s)" >&2
fi

if ! have_locale; then
	echo "deps.sh: generating the en_US.UTF-8 locale" >&2
	as_root localedef -i en_US -c -f UTF-8 -A /usr/share/locale/locale.alias en_US.UTF-8
fi

if ! command -v go >/dev/null 2>&1 && [[ ! -x /usr/local/go/bin/go ]]; then
	echo "deps.sh: no go on PATH after installing golang-go" >&2
	exit 1
fi
