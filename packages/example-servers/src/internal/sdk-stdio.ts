// The SDK's stdio entry and transport, as their own lazily loaded module of the bins (see tsup.config.ts).
export { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
export { reportStdioError } from "../serve-stdio.js";
