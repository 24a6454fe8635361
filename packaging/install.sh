#!/bin/sh
# install.sh installs mcptray on Linux (and the BSDs): the two executables
# that must stay side by side (mcptray, and mcptray-google, which `mcptray
# serve gcal|gmail` runs from the same folder), a desktop entry for the
# application menu, and the icon in the hicolor theme. `make install` runs
# it from a checkout; the .tar.gz carries it beside the binaries.
#
#   install.sh [install]   [--prefix DIR] [--destdir DIR]
#   install.sh uninstall   [--prefix DIR] [--destdir DIR]
#   install.sh desktop-entry EXEC     print the application's desktop entry
#   install.sh autostart-entry EXEC   print the autostart entry (the one the
#                                     Settings tab writes; the .deb puts it
#                                     in /etc/xdg/autostart)
#
# PREFIX (or --prefix): default ~/.local, or /usr/local as root. DESTDIR
# (or --destdir) stages the files under another root (packages, tests);
# the desktop entry still names PREFIX/bin/mcptray. The files come from
# beside this script (the tarball) or from the checkout (bin/, assets/);
# MCPTRAY_BIN, MCPTRAY_GOOGLE_BIN and MCPTRAY_ICON name others.
#
# uninstall removes exactly the files install puts, and no folder.
set -eu

app_id=io.github.mcptray
here=$(cd "$(dirname "$0")" && pwd)

desktop_entry() {
	cat <<ENTRY
[Desktop Entry]
Type=Application
Name=mcptray
GenericName=MCP server supervisor
Comment=Supervises your MCP servers and asks you for their secrets
Exec=$(exec_quote "$1")
Icon=$app_id
Terminal=false
Categories=Development;
Keywords=MCP;AI;assistant;server;tray;
StartupNotify=false
ENTRY
}

# The entry ui/autostart.go writes (its test compares them).
autostart_entry() {
	cat <<ENTRY
[Desktop Entry]
Type=Application
Name=mcptray
Comment=Supervises your MCP servers and asks you for their secrets
Exec=$(exec_quote "$1")
Terminal=false
X-GNOME-Autostart-enabled=true
ENTRY
}

# exec_quote quotes a path for a desktop entry's Exec key when it needs it
# (the Desktop Entry Specification's rules, as ui/autostart.go's
# desktopExecQuote): "%" doubled; a path with a reserved character in double
# quotes, with " ` $ \ escaped; then every backslash doubled.
exec_quote() {
	case $1 in
	*[[:space:]\"\'\\\>\<~\|\&\;\$\*\?\#\(\)\`]*)
		q=$(printf '%s' "$1" | sed -e 's/%/%%/g' -e 's/[\\"`$]/\\&/g' -e 's/\\/\\\\/g')
		printf '"%s"' "$q"
		;;
	*) printf '%s' "$1" | sed 's/%/%%/g' ;;
	esac
}

action=install
case ${1:-} in
install | uninstall) action=$1; shift ;;
desktop-entry) desktop_entry "$2"; exit 0 ;;
autostart-entry) autostart_entry "$2"; exit 0 ;;
-h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

if [ "$(id -u)" -eq 0 ]; then
	prefix=${PREFIX:-/usr/local}
else
	prefix=${PREFIX:-$HOME/.local}
fi
destdir=${DESTDIR:-}
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=$2; shift 2 ;;
	--prefix=*) prefix=${1#*=}; shift ;;
	--destdir) destdir=$2; shift 2 ;;
	--destdir=*) destdir=${1#*=}; shift ;;
	*) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
case $prefix in
/*) ;;
*) echo "install.sh: the prefix must be an absolute path, got $prefix" >&2; exit 2 ;;
esac
prefix=${prefix%/}

root=$destdir$prefix
bin_dir=$root/bin
apps_dir=$root/share/applications
icon_dir=$root/share/icons/hicolor/64x64/apps

if [ "$action" = uninstall ]; then
	for f in "$bin_dir/mcptray" "$bin_dir/mcptray-google" "$apps_dir/$app_id.desktop" "$icon_dir/$app_id.png"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			rm -f "$f"
			echo "removed $f"
		fi
	done
	exit 0
fi

# Where the files come from: beside this script (the tarball), else the
# checkout this script is in.
pick() {
	for p in "$@"; do
		if [ -f "$p" ]; then
			printf '%s' "$p"
			return 0
		fi
	done
	return 1
}
src_bin=${MCPTRAY_BIN:-$(pick "$here/mcptray" "$here/../bin/mcptray" || true)}
src_google=${MCPTRAY_GOOGLE_BIN:-$(pick "$here/mcptray-google" "$here/../bin/mcptray-google" || true)}
src_icon=${MCPTRAY_ICON:-$(pick "$here/$app_id.png" "$here/../assets/icon.png" || true)}
for f in "$src_bin" "$src_google" "$src_icon"; do
	if [ -z "$f" ] || [ ! -f "$f" ]; then
		echo "install.sh: missing ${f:-a file} (mcptray, mcptray-google and the icon; in a checkout, make build makes the binaries)" >&2
		exit 1
	fi
done

mkdir -p "$bin_dir" "$apps_dir" "$icon_dir"
# Copy, then rename: replacing a running mcptray's file in place would
# fail (text file busy) or corrupt it.
put() { # mode src dst
	cp "$2" "$3.new.$$"
	chmod "$1" "$3.new.$$"
	mv -f "$3.new.$$" "$3"
	echo "installed $3"
}
put 755 "$src_bin" "$bin_dir/mcptray"
put 755 "$src_google" "$bin_dir/mcptray-google"
put 644 "$src_icon" "$icon_dir/$app_id.png"
entry=$(mktemp)
trap 'rm -f "$entry"' EXIT
desktop_entry "$prefix/bin/mcptray" >"$entry"
put 644 "$entry" "$apps_dir/$app_id.desktop"

if [ -z "$destdir" ]; then
	# Icon caches notice the new icon by the folder's time.
	touch "$root/share/icons/hicolor" 2>/dev/null || true
	case ":$PATH:" in
	*":$bin_dir:"*) ;;
	*) echo "note: $bin_dir is not on your PATH; assistants' configs name the full path ($bin_dir/mcptray), so they work anyway" ;;
	esac
fi
