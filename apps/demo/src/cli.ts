// agentforge: the demo app's command line.
// Start-up cost matters (`--help`, `mcp list`): this module imports only the usage texts and the usage
// error; each command's module, and everything it needs (MCP SDK, LangChain, Hono...), is imported
// when that command runs. tsup splits those dynamic imports into chunks of their own.

import { DOCS_USAGE, MCP_USAGE, SERVE_USAGE } from "./cli/usage.js";
import { UsageError } from "./shared/usage-error.js";

const VERSION = "0.0.0";

const HELP = `agentforge ${VERSION} — governed MCP tools for LLM agents (demo app)

Commands:
  docs <folder>        document a folder with the Documentation agent (offline by default)
  resume <run-id>      continue a saved docs run in this process
  mcp <verb>           the MCP roster: list, inspect, tools, test, health, refresh, reconnect, reload
  serve                the REST API (/api/v1) and the /mcp dashboard page

${DOCS_USAGE}

${MCP_USAGE}

${SERVE_USAGE}

Exit codes: 0 ok, 1 something failed, 2 usage or config error.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case "-h":
    case "--help":
    case "help":
      process.stdout.write(`${HELP}\n`);
      return command === undefined ? 2 : 0;
    case "-v":
    case "--version":
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case "docs":
    case "resume": {
      const { docsCommand } = await import("./cli/docs.js");
      return docsCommand(rest, command);
    }
    case "mcp": {
      if (rest[0] === "login" || rest[0] === "logout") {
        const { mcpLoginCommand } = await import("./cli/mcp-login.js");
        return mcpLoginCommand(rest);
      }
      const { mcpCommand } = await import("./cli/mcp.js");
      return mcpCommand(rest);
    }
    case "serve": {
      const { serveCommand } = await import("./cli/serve.js");
      return serveCommand(rest);
    }
    default:
      throw new UsageError(
        `unknown command "${command}"; commands: docs, resume, mcp, serve (see agentforge --help)`,
      );
  }
}

/** Exit code 2 for usage and config errors, 1 for anything else. */
async function exitCodeOf(error: unknown): Promise<number> {
  const usage =
    error instanceof UsageError ||
    (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"));
  if (usage) return 2;
  // Loaded on this error path only, so that `--help` and usage mistakes never load the config package.
  const { MCPError } = await import("@agentforge/mcp-config/core");
  const config =
    MCPError.isInstance(error) && (error.code.startsWith("CONFIG_") || error.code === "RUN_CONFIG_MISMATCH");
  return config ? 2 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    // Error messages may quote a server, an authorization server or a model: cleaned before shown.
    const { writeErr } = await import("./shared/terminal-safe.js");
    writeErr(`agentforge: ${message}`);
    process.exitCode = await exitCodeOf(error).catch(() => 1);
  },
);
