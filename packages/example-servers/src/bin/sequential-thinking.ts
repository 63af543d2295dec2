import { runServerCli } from "../internal/run-server-cli.js";
import { sequentialThinkingSnapshot } from "../internal/stdio-snapshots.js";
import { VERSION } from "../internal/version.js";

// Not awaited: the bins are built as CommonJS, which has no top-level await (see tsup.config.ts).
void runServerCli({
  bin: "agentforge-sequential-thinking",
  version: VERSION,
  summary: "MCP server with the sequentialthinking tool (step-by-step reflective problem solving)",
  details: [
    "Each stdio connection and each 2025-era HTTP session keeps its own thought history;",
    "over HTTP, a 2026-07-28 client (stateless) gets none across requests.",
    "Set DISABLE_THOUGHT_LOGGING=true to stop logging thoughts on stderr.",
  ],
  async prepare() {
    return {
      // Loaded on first need: over stdio, initialize and tools/list are answered from the snapshot.
      create: async () =>
        (
          await import("../sequential-thinking/create-sequential-thinking-server.js")
        ).createSequentialThinkingServer(),
      stdioSnapshot: sequentialThinkingSnapshot(),
    };
  },
});
