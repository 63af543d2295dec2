// The options every `agentforge mcp <verb>` takes (the management verbs and login/logout alike).
import { parseArgs } from "node:util";

/**
 * Parse `agentforge mcp ...` arguments: `--config`, `--state-dir`, `--json`, `--help`, `--url` (reload),
 * `--agent` / `--search` / `--limit` (tools), and positionals.
 */
export function parseMCPArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: "string" },
      "state-dir": { type: "string" },
      json: { type: "boolean" },
      url: { type: "string" },
      agent: { type: "string" },
      search: { type: "string" },
      limit: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}
