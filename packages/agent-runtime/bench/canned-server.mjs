// A stdio MCP server that costs almost nothing, for `client-cost.bench.ts`: it answers initialize,
// tools/list, ping and tools/call with prepared replies (the official filesystem server's
// `list_allowed_directories` result and output schema, the request's id put in), everything it read in
// one chunk in one write. With it the client, not the server, is the limit, so what a client costs per
// call shows. Never use it for anything but measuring: it checks nothing.
const TOOL = {
  name: "list_allowed_directories",
  description: "Returns the list of directories that this server is allowed to access.",
  inputSchema: { type: "object", properties: {} },
  outputSchema: {
    type: "object",
    properties: { content: { type: "string" } },
    required: ["content"],
  },
};
const text = "Allowed directories:\n/tmp/canned";
const CALL_RESULT = JSON.stringify({
  content: [{ type: "text", text }],
  structuredContent: { content: text },
});
const LIST_RESULT = JSON.stringify({ tools: [TOOL] });

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let out = "";
  let end = buffered.indexOf("\n");
  while (end !== -1) {
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    end = buffered.indexOf("\n");
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message.id === undefined || typeof message.method !== "string") continue;
    const id = JSON.stringify(message.id);
    // The TypeScript SDK's servers write the id last: so does this one.
    if (message.method === "tools/call") out += `{"result":${CALL_RESULT},"jsonrpc":"2.0","id":${id}}\n`;
    else if (message.method === "tools/list") out += `{"result":${LIST_RESULT},"jsonrpc":"2.0","id":${id}}\n`;
    else if (message.method === "initialize") {
      const result = {
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "canned", version: "1.0.0" },
      };
      out += `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":${id}}\n`;
    } else if (message.method === "ping") out += `{"result":{},"jsonrpc":"2.0","id":${id}}\n`;
    else out += `{"error":{"code":-32601,"message":"Method not found"},"jsonrpc":"2.0","id":${id}}\n`;
  }
  if (out) process.stdout.write(out);
});
process.stdin.on("end", () => process.exit(0));
