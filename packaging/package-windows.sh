#!/usr/bin/env bash
# package-windows.sh builds mcptray's Windows packages into dist/ from
# bin/mcptray.exe (the tray app) and bin/mcptray-google.exe (make
# build-windows makes both), on Linux:
#   - mcptray-VERSION-windows-amd64.zip: the two programs and README.txt
#     (what to run; `mcptray setup`). Unzipped anywhere, it runs from there:
#     no installer, no shortcut, nothing outside the folder until `mcptray
#     setup` points the assistants at it;
#   - mcptray-VERSION-windows-amd64.msi, built by wixl (apt: wixl) from
#     packaging/windows/mcptray.wxs: a per-user install (no administrator)
#     into %LOCALAPPDATA%\Programs\mcptray with a Start-menu entry (whose
#     System.AppUserModel.ID is the app's, packaging/windows/
#     MsiShortcutProperty.idt), removed cleanly by an uninstall.
# VERSION is make package's (packaging/package.sh); the MSI's ProductVersion
# is its leading X.Y.Z. scripts/package-windows-check.sh checks both.
set -euo pipefail
cd "$(dirname "$0")/.."

for f in bin/mcptray.exe bin/mcptray-google.exe; do
	[[ -f $f ]] || { echo "package-windows.sh: no $f (make build-windows makes it)" >&2; exit 1; }
done
for tool in wixl msibuild zip; do
	command -v "$tool" >/dev/null || { echo "package-windows.sh: no $tool (scripts/deps.sh installs it)" >&2; exit 1; }
done

version=$(git describe --tags --dirty 2>/dev/null || true)
version=${version#v}
base=$(sed -n 's/^ *Version *= *"\(.*\)"/\1/p' FyneApp.toml)
if [[ -z $version ]]; then
	version="${base:-0.0.0}~git$(git log -1 --format=%cd --date=format:%Y%m%d 2>/dev/null || date +%Y%m%d).$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
fi
version=${version//-/.}
msi_version=$(grep -o '^[0-9]\+\(\.[0-9]\+\)\{0,2\}' <<<"$version" || true)
msi_version=${msi_version:-${base:-0.0.0}}

stage=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-stage-windows.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p dist
rm -f dist/mcptray-*-windows-*.zip dist/mcptray-*-windows-*.msi # one version at a time

name=mcptray-${version}-windows-amd64
mkdir -p "$stage/$name"
cp bin/mcptray.exe bin/mcptray-google.exe "$stage/$name/"
# Windows' Notepad reads CRLF best.
sed 's/$/\r/' >"$stage/$name/README.txt" <<README
mcptray $version for Windows (amd64)

mcptray.exe is the tray app: double-click it, or run it from a terminal.
It creates its config at %APPDATA%\\mcptray\\mcp.json on first run and keeps
its data in %LOCALAPPDATA%\\mcptray.

  mcptray.exe                 starts the tray app (the same as mcptray.exe run)
  mcptray.exe setup           points Claude Desktop and the other assistants
                              it finds at this mcptray (run it again after
                              moving the folder)
  mcptray.exe status          what mcptray runs, from a terminal
  mcptray.exe --help          every command

Keep mcptray.exe and mcptray-google.exe in the same folder: the built-in
Google servers run mcptray-google.exe from beside mcptray.exe. This folder
needs no installer; the MSI of the same version installs the same two
programs for you alone into %LOCALAPPDATA%\\Programs\\mcptray, with a
Start-menu entry, and removes them again from Settings > Apps.
README

(cd "$stage" && zip -q -X -r "$OLDPWD/dist/$name.zip" "$name")
echo "dist/$name.zip"

# wixl reads the files relative to where it runs.
msi=dist/$name.msi
(cd "$stage/$name" && wixl -a x64 -D Version="$msi_version" -D Bin=. -D Readme=README.txt \
	-o "$OLDPWD/$msi" "$OLDPWD/packaging/windows/mcptray.wxs")
# The Start-menu shortcut carries mcptray's app ID (the one its toasts are
# sent under): Windows shows a desktop app's toasts only then. wixl has no
# ShortcutProperty, so the table goes in after it (msibuild, msitools).
msibuild "$msi" -i packaging/windows/MsiShortcutProperty.idt
echo "$msi"
