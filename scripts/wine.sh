#!/usr/bin/env bash
# wine.sh runs a Windows program under Wine in mcptray's own Wine prefix:
#
#   scripts/wine.sh bin/mcptray.exe --version    run it (wine64's exit status)
#   scripts/wine.sh --setup                      only make the prefix; print its path
#   scripts/wine.sh --kill                       end every process of the prefix
#                                                (wineserver -k), and wait for them
#   scripts/wine.sh --reset                      --kill, then put back the registry
#                                                as wineboot left it (the keyring,
#                                                Credential Manager, lives there)
#
# The prefix is $MCPTRAY_WINEPREFIX, else .cache/wine/prefix in the repo. The
# first run makes it (wineboot -i, ≈ 8 s, no display needed) with a user
# profile named $MCPTRAY_WINE_USER (else $USER): Wine names C:\users\NAME
# after $USER when it boots, so `MCPTRAY_WINE_USER="Zoë Test"` gives a
# profile path with a space and a non-ASCII letter. Programs then always run
# as that user. Changing MCPTRAY_WINE_USER later does not rename an existing
# prefix: delete it, or use another MCPTRAY_WINEPREFIX.
#
# Wine 8 lacks bcryptprimitives.dll!ProcessPrng, which Go 1.22 and later
# call before main runs. wine.sh builds a stand-in (scripts/wine/, with
# x86_64-w64-mingw32-gcc) and copies it into the prefix's System32, where Go
# looks for it; again whenever its source changes. Making the prefix and
# the DLL holds a lock, so parallel callers wait for the first.
#
# Debian puts the loader wine64 in /usr/lib/wine, not on PATH: wine.sh asks
# dpkg where it is ($MCPTRAY_WINE64 overrides). WINEDEBUG is -all unless set;
# mscoree and mshtml are off (no Mono or Gecko prompts). apt: wine64,
# gcc-mingw-w64-x86-64 (scripts/deps.sh installs both).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
shim_src=$repo/scripts/wine
prefix=${MCPTRAY_WINEPREFIX:-$repo/.cache/wine/prefix}

die() { echo "wine.sh: $*" >&2; exit 1; }

wine64=${MCPTRAY_WINE64:-}
if [[ -z $wine64 ]]; then
	wine64=$(dpkg -L wine64 2>/dev/null | grep -m1 '/wine64$' || true)
	[[ -n $wine64 ]] || wine64=$(command -v wine64 || true)
	[[ -n $wine64 ]] || die "no wine64 (apt: wine64; scripts/deps.sh installs it)"
fi
wineserver=$(dirname "$wine64")/wineserver
[[ -x $wineserver ]] || wineserver=$(command -v wineserver || true)
[[ -n $wineserver ]] || die "no wineserver beside $wine64"

export WINEPREFIX=$prefix WINESERVER=$wineserver
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}

kill_prefix() {
	[[ -d $prefix ]] || return 0
	"$wineserver" -k 2>/dev/null || true
	"$wineserver" -w 2>/dev/null || true
}
if [[ ${1:-} == --kill ]]; then
	kill_prefix
	exit 0
fi

# setup makes the prefix (once) and puts the current shim into it.
setup() {
	mkdir -p "$(dirname "$prefix")"
	exec 9>"$prefix.lock"
	flock 9
	if [[ ! -f $prefix/.mcptray-user ]]; then
		local user=${MCPTRAY_WINE_USER:-${USER:-$(id -un)}} t0=$SECONDS
		rm -rf "$prefix"
		mkdir -p "$prefix"
		echo "wine.sh: making the Wine prefix $prefix for \"$user\" (wineboot -i)" >&2
		# 9>&-: the processes wineboot leaves running must not hold the lock.
		USER=$user "$wine64" wineboot -i >/dev/null 2>&1 9>&- || die "wineboot -i in $prefix failed"
		"$wineserver" -w 9>&-
		# The registry as wineboot left it, for --reset.
		mkdir -p "$prefix/.mcptray-boot"
		cp "$prefix"/*.reg "$prefix/.mcptray-boot/"
		printf '%s\n' "$user" >"$prefix/.mcptray-user"
		echo "wine.sh: made the prefix ($((SECONDS - t0))s)" >&2
	fi
	local sum dll=$prefix/drive_c/windows/system32/bcryptprimitives.dll
	sum=$(cat "$shim_src/bcryptprimitives.c" "$shim_src/bcryptprimitives.def" | sha256sum)
	sum=${sum%% *}
	if [[ ! -f $dll || $(cat "$prefix/.mcptray-shim" 2>/dev/null) != "$sum" ]]; then
		command -v x86_64-w64-mingw32-gcc >/dev/null ||
			die "no x86_64-w64-mingw32-gcc to build the ProcessPrng shim (apt: gcc-mingw-w64-x86-64)"
		x86_64-w64-mingw32-gcc -shared -O2 -s -o "$prefix/bcryptprimitives.dll" \
			"$shim_src/bcryptprimitives.c" "$shim_src/bcryptprimitives.def" -ladvapi32 ||
			die "building the ProcessPrng shim"
		mv "$prefix/bcryptprimitives.dll" "$dll"
		printf '%s\n' "$sum" >"$prefix/.mcptray-shim"
	fi
	exec 9>&-
}

setup
if [[ ${1:-} == --reset ]]; then
	[[ -d $prefix/.mcptray-boot ]] || die "$prefix has no saved registry (an older wine.sh made it): delete it"
	kill_prefix
	cp "$prefix"/.mcptray-boot/*.reg "$prefix/"
	exit 0
fi
if [[ ${1:-} == --setup ]]; then
	echo "$prefix"
	exit 0
fi
[[ $# -gt 0 ]] || die "usage: scripts/wine.sh PROGRAM [ARGS...] | --setup | --kill | --reset"
USER=$(cat "$prefix/.mcptray-user")
export USER
exec "$wine64" "$@"
