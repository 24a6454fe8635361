#!/usr/bin/env bash
# Writes mcp/toolsearch/testdata/catalogue.json: the tools/list of eleven
# popular MCP servers from npm, at pinned versions, asked with dummy tokens
# (only tools/list is needed: no server reaches its service). The packages
# go into a cache folder (default .cache/tool-catalogue), installed only
# when missing; the catalogue is committed, so tests and make bench need no
# npm. Usage: scripts/tool-catalogue.sh [CACHE_DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-"$repo/.cache/tool-catalogue"}
# server name, npm package, version
servers=(
  "github @modelcontextprotocol/server-github 2025.4.8"
  "gitlab @modelcontextprotocol/server-gitlab 2025.4.25"
  "slack @modelcontextprotocol/server-slack 2025.4.25"
  "notion @notionhq/notion-mcp-server 2.5.2"
  "google-maps @modelcontextprotocol/server-google-maps 0.6.2"
  "brave-search @modelcontextprotocol/server-brave-search 0.6.2"
  "postgres @modelcontextprotocol/server-postgres 0.6.2"
  "filesystem @modelcontextprotocol/server-filesystem 2026.8.31"
  "memory @modelcontextprotocol/server-memory 2026.8.31"
  "sequential-thinking @modelcontextprotocol/server-sequential-thinking 2026.8.31"
  "everything @modelcontextprotocol/server-everything 2026.8.31"
)
pkgs=()
for s in "${servers[@]}"; do read -r _ p v <<<"$s"; pkgs+=("$p@$v"); done
mkdir -p "$dir"
stamp="$dir/.installed"
want=$(printf '%s\n' "${pkgs[@]}")
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  [[ -f "$dir/package.json" ]] || echo '{"private": true}' > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "${pkgs[@]}" >&2)
  printf '%s\n' "$want" > "$stamp"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/files"
# Dummy values only: nothing here is a real credential.
declare -A env=(
  [github]='{"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy"}'
  [gitlab]='{"GITLAB_PERSONAL_ACCESS_TOKEN": "dummy", "GITLAB_API_URL": "http://127.0.0.1:9/api/v4"}'
  [slack]='{"SLACK_BOT_TOKEN": "xoxb-dummy", "SLACK_TEAM_ID": "T00000000"}'
  [notion]='{"NOTION_TOKEN": "dummy"}'
  [google-maps]='{"GOOGLE_MAPS_API_KEY": "dummy"}'
  [brave-search]='{"BRAVE_API_KEY": "dummy"}'
  [memory]="{\"MEMORY_FILE_PATH\": \"$scratch/memory.jsonl\"}"
)
declare -A args=(
  [postgres]='["postgresql://127.0.0.1:9/dummy"]'
  [filesystem]="[\"$scratch/files\"]"
  [everything]='["stdio"]'
)
plan="$scratch/plan.json"
{
  echo '{"servers": ['
  sep=""
  for s in "${servers[@]}"; do
    read -r name p v <<<"$s"
    bin=$(cd "$dir/node_modules/$p" && node -e 'const b=require("./package.json").bin; console.log(typeof b === "string" ? b : Object.values(b)[0])')
    printf '%s{"server": "%s", "package": "%s", "version": "%s", "command": "node", "args": ["%s"' "$sep" "$name" "$p" "$v" "$dir/node_modules/$p/$bin"
    a=${args[$name]:-'[]'}
    [[ $a != '[]' ]] && printf ', %s' "${a:1:${#a}-2}"
    printf '], "env": %s}\n' "${env[$name]:-{\}}"
    sep=","
  done
  echo ']}'
} > "$plan"
out="$repo/mcp/toolsearch/testdata/catalogue.json"
node "$repo/scripts/tool-catalogue.mjs" "$plan" > "$out.tmp"
mv "$out.tmp" "$out"
node -e 'const c=require(process.argv[1]); let n=0; for (const s of c.servers) { n+=s.tools.length; console.error(`${s.name} ${s.package}@${s.version}: ${s.tools.length} tools`) } console.error(`${n} tools`)' "$out"
