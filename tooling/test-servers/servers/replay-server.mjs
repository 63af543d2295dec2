#!/usr/bin/env node
// A real MCP server over stdio that lists a recorded tool list (rosters/public/<server>.json, see
// scripts/record-public-rosters.mjs) exactly as its server sent it: names, titles, descriptions, input
// and output schemas, annotations. Calls are not replayed: every tools/call answers with an error result
// that says so. Usage: node replay-server.mjs <roster.json>
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  process.stderr.write("replay server: give the recorded roster file (rosters/public/<server>.json)\n");
  process.exit(2);
}
const record = JSON.parse(readFileSync(file, "utf8"));
const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");

const server = new Server(
  { name: `replay-${record.server}`, version: "1.0.0" },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: record.tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  isError: true,
  content: [
    {
      type: "text",
      text: `replay server "${record.server}": ${request.params.name} is a recorded definition; calls are not replayed`,
    },
  ],
}));
await server.connect(new StdioServerTransport());
process.stderr.write("ready\n");
process.stdin.on("end", () => process.exit(0));
