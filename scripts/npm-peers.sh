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
  # The assistants' own CLIs (cli/e2e_realassistants_test.go). Claude Code's
  # engines say node >= 22; its CLI is a native binary (an optional
  # dependency, from npm like Codex's), which runs under node 20 too.
  "@anthropic-ai/claude-code@2.1.328"
  "@google/gemini-cli@0.61.0"
  "@openai/codex@0.169.0"
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
