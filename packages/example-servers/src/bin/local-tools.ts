import { runServerCli } from "../internal/run-server-cli.js";
import { VERSION } from "../internal/version.js";
import { createLocalToolsServer } from "../local-tools/create-local-tools-server.js";

await runServerCli({
  bin: "agentforge-local-tools",
  version: VERSION,
  summary: "MCP server with local utilities: current_time, echo, word_count",
  async prepare() {
    return { create: () => createLocalToolsServer() };
  },
});
