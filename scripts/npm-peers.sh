#!/usr/bin/env bash
# Installs the real third-party MCP peers the end-to-end tests use, from the
# npm registry, into a cache folder (default .cache/npm-peers), only when
# missing. Prints the folder.
set -euo pipefail
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.cache/npm-peers"}
peers=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/inspector-cli@1.0.3"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
  "@ai-sdk/mcp@2.0.99"
  "zod@4.6.7"
)
mkdir -p "$dir"
stamp="$dir/.installed"
want=$(printf '%s\n' "${peers[@]}")
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  [[ -f "$dir/package.json" ]] || echo '{"private": true}' > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "${peers[@]}" >&2)
  printf '%s\n' "$want" > "$stamp"
fi
echo "$dir"
