// agentforge: the demo app's command line.
import { MCPError } from "@agentforge/mcp-config";
import { DOCS_USAGE, docsCommand } from "./commands/docs.js";
import { MCP_USAGE, mcpCommand } from "./commands/mcp.js";
import { mcpLoginCommand } from "./commands/mcp-login.js";
import { SERVE_USAGE, serveCommand } from "./commands/serve.js";
import { UsageError } from "./internal/usage-error.js";

const VERSION = "0.0.0";

const HELP = `agentforge ${VERSION} — governed MCP tools for LLM agents (demo app)

Commands:
  docs <folder>        document a folder with the Documentation agent (offline by default)
  resume <run-id>      continue a saved docs run in this process
  mcp <verb>           the MCP roster: list, inspect, tools, test, health, refresh
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
      return docsCommand(rest, "docs");
    case "resume":
      return docsCommand(rest, "resume");
    case "mcp":
      return rest[0] === "login" || rest[0] === "logout" ? mcpLoginCommand(rest) : mcpCommand(rest);
    case "serve":
      return serveCommand(rest);
    default:
      throw new UsageError(
        `unknown command "${command}"; commands: docs, resume, mcp, serve (see agentforge --help)`,
      );
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage =
      error instanceof UsageError ||
      (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"));
    const config =
      MCPError.isInstance(error) &&
      (error.code.startsWith("CONFIG_") || error.code === "RUN_CONFIG_MISMATCH");
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`agentforge: ${message}\n`);
    process.exitCode = usage || config ? 2 : 1;
  },
);
