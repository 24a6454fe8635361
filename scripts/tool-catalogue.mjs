// Asks each server named in argv's JSON plan for its tools (initialize,
// notifications/initialized, tools/list with every page) over stdio, and
// prints the catalogue as JSON. Used by scripts/tool-catalogue.sh; needs
// only node.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));

function listTools(entry) {
  return new Promise((resolve, reject) => {
    const child = spawn(entry.command, entry.args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...entry.env },
      stdio: ["pipe", "pipe", "ignore"],
    });
    const tools = [];
    let buf = "";
    let nextId = 1;
    const timer = setTimeout(() => { child.kill("SIGKILL"); reject(new Error(`${entry.server}: no answer in 60 s`)); }, 60000);
    const send = (msg) => child.stdin.write(JSON.stringify(msg) + "\n");
    const request = (method, params) => send({ jsonrpc: "2.0", id: nextId++, method, params });
    child.on("error", reject);
    child.stdout.on("data", (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith("{")) continue;
        const msg = JSON.parse(line);
        if (msg.id === undefined) continue;
        if (msg.error) { clearTimeout(timer); child.kill(); reject(new Error(`${entry.server}: ${msg.error.message}`)); return; }
        if (msg.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          request("tools/list", {});
        } else {
          tools.push(...msg.result.tools);
          if (msg.result.nextCursor) { request("tools/list", { cursor: msg.result.nextCursor }); continue; }
          clearTimeout(timer);
          child.stdin.end();
          child.kill();
          resolve(tools);
        }
      }
    });
    request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mcptray-tool-catalogue", version: "1" } });
  });
}

const servers = [];
for (const entry of plan.servers) {
  const tools = await listTools(entry);
  servers.push({ name: entry.server, package: entry.package, version: entry.version, tools });
}
process.stdout.write(JSON.stringify({
  about: "The tools/list of real MCP servers from npm, pinned, asked with dummy tokens by scripts/tool-catalogue.sh. Regenerate with that script; do not edit by hand.",
  servers,
}, null, 1) + "\n");
