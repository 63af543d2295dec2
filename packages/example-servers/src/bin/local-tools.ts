import { runServerCli } from "../internal/run-server-cli.js";
import { localToolsSnapshot } from "../internal/stdio-snapshots.js";
import { VERSION } from "../internal/version.js";

// Not awaited: the bins are built as CommonJS, which has no top-level await (see tsup.config.ts).
void runServerCli({
  bin: "agentforge-local-tools",
  version: VERSION,
  summary: "MCP server with local utilities: current_time, echo, word_count",
  async prepare() {
    return {
      // Loaded on first need: over stdio, initialize and tools/list are answered from the snapshot.
      create: async () =>
        (await import("../local-tools/create-local-tools-server.js")).createLocalToolsServer(),
      stdioSnapshot: localToolsSnapshot(),
    };
  },
});
