#!/usr/bin/env bash
# package-windows-check.sh checks what `make package-windows` made (dist/):
#   - the .zip: one folder holding mcptray.exe, mcptray-google.exe and a
#     README.txt that says to run `mcptray setup`;
#   - the .msi, read with msiinfo (apt: msitools): an x64 package whose
#     summary says it needs no elevation (per user), no ALLUSERS property,
#     the three files in INSTALLDIR = %LOCALAPPDATA%\Programs\mcptray, the
#     Start-menu shortcut to [INSTALLDIR]mcptray.exe with the app's
#     System.AppUserModel.ID (toasts need it), and each component
#     keyed by an HKCU value;
#   - the .msi under Wine (scripts/wine.sh, a prefix of its own whose user
#     is "Zoë Test"): msiexec /i /qn puts the files and the Start-menu
#     entry into that user's profile, the installed mcptray.exe --version
#     runs, and msiexec /x /qn leaves no file, folder or registry key.
#     Without wine64 this part is skipped with a line saying so, except in
#     CI (CI=true), where that fails.
# Each step prints a line; a failure says which and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

t0=$SECONDS
say() { echo "package-windows-check: $* ($((SECONDS - t0))s)"; }
fail() { echo "package-windows-check: FAILED: $*" >&2; exit 1; }

zipf=$(ls -t dist/mcptray-*-windows-amd64.zip 2>/dev/null | head -1)
msi=$(ls -t dist/mcptray-*-windows-amd64.msi 2>/dev/null | head -1)
[[ -n $zipf && -n $msi ]] || fail "no .zip or .msi in dist/ (make package-windows makes them)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-package-windows-check.XXXXXX")
prefix=${MCPTRAY_WINEPREFIX:-$PWD/.cache/wine/package-check}
cleanup() {
	if [[ -d $prefix ]]; then MCPTRAY_WINEPREFIX=$prefix scripts/wine.sh --kill; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The zip.
name=$(basename "$zipf" .zip)
unzip -Z1 "$zipf" | grep -v '/$' | sort >"$tmp/zip.txt"
printf '%s\n' "$name/README.txt" "$name/mcptray-google.exe" "$name/mcptray.exe" >"$tmp/want.txt"
diff -u "$tmp/want.txt" "$tmp/zip.txt" >&2 || fail "$zipf holds other files than those"
unzip -p "$zipf" "$name/README.txt" | grep -q 'mcptray.exe setup' || fail "the zip's README.txt does not say to run mcptray setup"
say "$zipf: mcptray.exe, mcptray-google.exe, README.txt"

# The MSI, as msiinfo reads it. Tables print tab-separated, after three
# header lines (CRLF: the \r goes).
table() { msiinfo export "$msi" "$1" | tr -d '\r' | tail -n +4; }
row() { # table, the row's tab-separated fields (a grep -x pattern)
	table "$1" | grep -qx "$2" || fail "$msi's $1 table has no row $(printf '%q' "$2"); it has:
$(table "$1")"
}
msiinfo suminfo "$msi" >"$tmp/suminfo.txt"
grep -qx 'Template: x64;1033' "$tmp/suminfo.txt" || fail "$msi is not an x64 package: $(cat "$tmp/suminfo.txt")"
words=$(sed -n 's/^Source: \([0-9]*\).*/\1/p' "$tmp/suminfo.txt")
(((words & 8) == 8)) || fail "$msi asks for elevation (Word Count $words has no bit 8: not per user)"
if table Property | grep -q '^ALLUSERS	'; then fail "$msi sets ALLUSERS: not a per-user install"; fi
row Directory $'LocalPrograms\tLocalAppDataFolder\tPrograms'
row Directory $'INSTALLDIR\tLocalPrograms\tmcptray'
for f in mcptray.exe mcptray-google.exe README.txt; do
	row File "[^	]*	Binaries	${f//./\\.}	.*"
done
row Component $'Binaries\t{[-0-9A-F]*}\tINSTALLDIR\t4\t\treg[0-9A-F]*'
row Component $'StartMenu\t{[-0-9A-F]*}\tProgramMenuFolder\t4\t\treg[0-9A-F]*'
row MsiShortcutProperty $'AppUserModelID\tStartMenuShortcut\tSystem.AppUserModel.ID\tio.github.mcptray'
row Shortcut $'StartMenuShortcut\tProgramMenuFolder\tmcptray\tStartMenu\t\\[INSTALLDIR\\]mcptray\\.exe\t.*'
row Registry $'reg[0-9A-F]*\t1\tSoftware\\\\mcptray\\\\Installer\tBinaries\t#1\tBinaries'
row RemoveFile $'RemoveINSTALLDIR\tBinaries\t\tINSTALLDIR\t2'
say "$msi: per user, the three files in %LOCALAPPDATA%\\Programs\\mcptray, the Start-menu entry (msiinfo)"

# The MSI under Wine.
if ! dpkg -L wine64 >/dev/null 2>&1 && ! command -v wine64 >/dev/null; then
	[[ ${CI:-} != true ]] || fail "no wine64 in CI (scripts/deps.sh installs it)"
	say "SKIPPED the install under Wine: no wine64 (scripts/deps.sh installs it)"
	exit 0
fi
wine() { MCPTRAY_WINEPREFIX=$prefix MCPTRAY_WINE_USER="Zoë Test" scripts/wine.sh "$@"; }
wine --setup >/dev/null
profile=$prefix/drive_c/users/$(cat "$prefix/.mcptray-user")
installed=$profile/AppData/Local/Programs/mcptray
lnk=$profile/AppData/Roaming/Microsoft/Windows/Start\ Menu/Programs/mcptray.lnk
msi_w=$(wine winepath -w "$PWD/$msi" | tr -d '\r')
wine msiexec /x "$msi_w" /qn >/dev/null 2>&1 || true # a run that failed halfway
wine msiexec /i "$msi_w" /qn >"$tmp/install.txt" 2>&1 || fail "msiexec /i $msi: $(cat "$tmp/install.txt")"
for f in mcptray.exe mcptray-google.exe README.txt; do
	cmp -s "$installed/$f" <(unzip -p "$zipf" "$name/$f") || fail "msiexec /i put no $f (the zip's) into $installed"
done
[[ -f $lnk ]] || fail "msiexec /i made no Start-menu entry $lnk"
wine "$installed/mcptray.exe" --version >"$tmp/version.txt" 2>&1 || fail "the installed mcptray.exe --version: $(cat "$tmp/version.txt")"
grep -q '^mcptray ' "$tmp/version.txt" || fail "the installed mcptray.exe --version printed: $(cat "$tmp/version.txt")"
say "msiexec /i under Wine: $installed, the Start-menu entry, $(head -1 "$tmp/version.txt" | tr -d '\r')"
wine reg query 'HKCU\Software\mcptray\Installer' >/dev/null 2>&1 || fail "no HKCU\\Software\\mcptray\\Installer after msiexec /i"
wine msiexec /x "$msi_w" /qn >"$tmp/remove.txt" 2>&1 || fail "msiexec /x $msi: $(cat "$tmp/remove.txt")"
[[ ! -e $installed ]] || fail "msiexec /x left $(find "$installed")"
[[ ! -e $lnk ]] || fail "msiexec /x left $lnk"
if wine reg query 'HKCU\Software\mcptray' >/dev/null 2>&1; then fail "msiexec /x left HKCU\\Software\\mcptray"; fi
say "msiexec /x under Wine: no file, shortcut or registry key left"
