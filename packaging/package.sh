#!/usr/bin/env bash
# package.sh builds mcptray's Linux packages into dist/ from bin/mcptray
# (the tray app, `make build`) and bin/mcptray-google:
#   - mcptray_VERSION-1_ARCH.deb: /usr/bin/mcptray and mcptray-google, the
#     desktop entry, the icon in the hicolor theme and the autostart entry
#     in /etc/xdg/autostart — made with nfpm, run as a Go module at a fixed
#     version (built once, then from the build cache);
#   - mcptray-VERSION-linux-ARCH.tar.gz: both binaries, the icon and
#     install.sh (./install.sh puts them in ~/.local, or /usr/local as root;
#     ./install.sh uninstall removes them).
# The desktop entries are checked with desktop-file-validate. VERSION is
# `git describe --tags` without its v, else FyneApp.toml's Version with
# ~git, the commit's date and its short hash.
set -euo pipefail
cd "$(dirname "$0")/.."

NFPM=${NFPM:-github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.48.0}
GO=${GO:-go}
for f in bin/mcptray bin/mcptray-google; do
	[[ -x $f ]] || { echo "package.sh: no $f (make build makes it)" >&2; exit 1; }
done

version=$(git describe --tags --dirty 2>/dev/null || true)
version=${version#v}
if [[ -z $version ]]; then
	base=$(sed -n 's/^ *Version *= *"\(.*\)"/\1/p' FyneApp.toml)
	version="${base:-0.0.0}~git$(git log -1 --format=%cd --date=format:%Y%m%d 2>/dev/null || date +%Y%m%d).$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
fi
version=${version//-/.} # a Debian upstream version: no "-" (the revision's)
arch=$($GO env GOARCH)

stage=$(mktemp -d "${TMPDIR:-/tmp}/mcptray-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p dist
rm -f dist/mcptray_*.deb dist/mcptray-*-linux-*.tar.gz # one version at a time

# The .deb's tree, staged by the same script `make install` runs.
MCPTRAY_BIN=bin/mcptray MCPTRAY_GOOGLE_BIN=bin/mcptray-google MCPTRAY_ICON=assets/icon.png \
	packaging/install.sh install --prefix /usr --destdir "$stage/deb" >/dev/null
mkdir -p "$stage/deb/etc/xdg/autostart"
packaging/install.sh autostart-entry /usr/bin/mcptray >"$stage/deb/etc/xdg/autostart/io.github.mcptray.desktop"
if command -v desktop-file-validate >/dev/null 2>&1; then
	desktop-file-validate "$stage/deb/usr/share/applications/io.github.mcptray.desktop" \
		"$stage/deb/etc/xdg/autostart/io.github.mcptray.desktop"
elif [[ ${CI:-} == true ]]; then
	echo "package.sh: desktop-file-validate is missing (apt: desktop-file-utils)" >&2
	exit 1
else
	echo "package.sh: desktop-file-validate not found: desktop entries not checked" >&2
fi

deb=dist/mcptray_${version}-1_${arch}.deb
rm -f "$deb"
MCPTRAY_STAGE="$stage/deb" MCPTRAY_VERSION=$version NFPM_ARCH=$arch \
	$GO run "$NFPM" package --config packaging/nfpm.yaml --packager deb --target "$deb" >/dev/null
echo "$deb"

name=mcptray-${version}-linux-${arch}
mkdir -p "$stage/tar/$name"
cp bin/mcptray bin/mcptray-google packaging/install.sh "$stage/tar/$name/"
cp assets/icon.png "$stage/tar/$name/io.github.mcptray.png"
cat >"$stage/tar/$name/README" <<README
mcptray $version for Linux ($arch)

  ./install.sh              installs mcptray and mcptray-google into ~/.local/bin
                            (/usr/local/bin as root), with a desktop entry and icon
  ./install.sh uninstall    removes them again
  ./install.sh --help       --prefix, --destdir and the rest

Keep mcptray and mcptray-google in the same folder: \`mcptray serve gcal|gmail\`
runs mcptray-google from beside it. The tray app needs libGL and libX11.
README
tar -C "$stage/tar" --owner=0 --group=0 --sort=name -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz"
