// The Vercel AI SDK's MCP client with its default options: connect, list
// the tools, call one, print one JSON line. Run by TestAISDKClient with the
// npm peers folder as NODE_PATH-like base (argv[2]).
//
//   node aisdk-client.mjs PEERS stdio TOOL ARGS_JSON COMMAND [ARG...]
//   node aisdk-client.mjs PEERS http  TOOL ARGS_JSON URL AUTHORIZATION
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [peers, kind, toolName, argsJSON, ...rest] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(peers, "node_modules", p)).href);
const { createMCPClient } = await mod("@ai-sdk/mcp/dist/index.js");

let transport;
if (kind === "stdio") {
  const { Experimental_StdioMCPTransport } = await mod("@ai-sdk/mcp/dist/mcp-stdio/index.js");
  transport = new Experimental_StdioMCPTransport({ command: rest[0], args: rest.slice(1), env: process.env });
} else {
  transport = { type: "http", url: rest[0], headers: { Authorization: rest[1] } };
}
let client;
try {
  client = await createMCPClient({ transport });
  const tools = await client.tools();
  const result = await tools[toolName].execute(JSON.parse(argsJSON), { toolCallId: "1", messages: [] });
  console.log(JSON.stringify({ tools: Object.keys(tools).sort(), result }));
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.message || e), code: e && e.code }));
} finally {
  await client?.close();
}
