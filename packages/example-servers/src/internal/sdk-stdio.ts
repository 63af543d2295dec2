// The SDK's stdio transport, as its own lazily loaded module of the bins (see tsup.config.ts).
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
