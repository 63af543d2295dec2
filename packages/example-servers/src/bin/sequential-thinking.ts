import { runServerCli } from "../internal/run-server-cli.js";
import { VERSION } from "../internal/version.js";
import { createSequentialThinkingServer } from "../sequential-thinking/create-sequential-thinking-server.js";

await runServerCli({
  bin: "agentforge-sequential-thinking",
  version: VERSION,
  summary: "MCP server with the sequentialthinking tool (step-by-step reflective problem solving)",
  details: [
    "Each stdio connection and each HTTP session keeps its own thought history.",
    "Set DISABLE_THOUGHT_LOGGING=true to stop logging thoughts on stderr.",
  ],
  async prepare() {
    return { create: () => createSequentialThinkingServer() };
  },
});
