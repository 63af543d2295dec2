// `agentforge serve`: the REST API and the /mcp page, until SIGINT or SIGTERM.
import { parseArgs } from "node:util";
import { UsageError } from "../internal/usage-error.js";
import { ALLOWED_HOSTS_VARIABLE, API_TOKEN_VARIABLE } from "../server/request-guard.js";
import { startServer } from "../server/start-server.js";

export const SERVE_USAGE = `Usage: agentforge serve [--port 0] [--host 127.0.0.1] [--config FILE] [--state-dir DIR]
                        [--allowed-base DIR] [--no-check]
  REST API under /api/v1 (MCP servers, docs runs with live events over SSE) and the /mcp dashboard.
  --port N             port (default 0: any free port; the URL is printed on stderr when ready)
  --host HOST          interface (default 127.0.0.1); anything but loopback requires ${API_TOKEN_VARIABLE}
  --allowed-base DIR   runs may only document folders under DIR (default: the working directory)
  --no-check           do not health-check every server at start
  ${API_TOKEN_VARIABLE}   when set, every /api request needs "Authorization: Bearer <token>"
  ${ALLOWED_HOSTS_VARIABLE}   comma-separated Host header values accepted (behind a proxy)`;

const FORCE_EXIT_MS = 10_000;

/** Run `agentforge serve <argv...>`; resolves with the exit code once stopped by a signal. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      config: { type: "string" },
      "state-dir": { type: "string" },
      "allowed-base": { type: "string" },
      "no-check": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(
      `serve takes no arguments, got "${positionals.join(" ")}" (see agentforge serve --help)`,
    );
  const port = values.port ?? "0";
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
    throw new UsageError(`--port expects a port number from 0 to 65535, got "${port}"`);
  const host = values.host ?? "127.0.0.1";
  if (host.trim() === "") throw new UsageError("--host expects an interface address, e.g. 127.0.0.1");
  const token = process.env[API_TOKEN_VARIABLE] || undefined;
  const hosts = process.env[ALLOWED_HOSTS_VARIABLE]
    ?.split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  const server = await startServer({
    host,
    port: Number(port),
    ...(values.config ? { configPath: values.config } : {}),
    ...(values["state-dir"] ? { stateDir: values["state-dir"] } : {}),
    ...(values["allowed-base"] ? { allowedBase: values["allowed-base"] } : {}),
    ...(token ? { token } : {}),
    ...(hosts?.length ? { allowedHosts: hosts } : {}),
    checkOnStart: values["no-check"] !== true,
  });
  process.stderr.write(
    `agentforge serve: listening on ${server.url} (dashboard ${server.url}/mcp; runs under ${server.allowedBase})${token ? " (bearer token required)" : ""}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.stderr.write("agentforge serve: stopping (active runs are paused; resume them later)\n");
      setTimeout(() => process.exit(1), FORCE_EXIT_MS).unref();
      void server.close().finally(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  return 0;
}
