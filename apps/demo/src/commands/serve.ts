// `agentforge serve`: the REST API and the /mcp page, until SIGINT or SIGTERM.
import { parseArgs } from "node:util";
import { UsageError } from "../internal/usage-error.js";
import { ALLOWED_HOSTS_VARIABLE, API_TOKEN_VARIABLE } from "../server/request-guard.js";
import { SERVE_USAGE } from "./usage.js";

export { SERVE_USAGE };

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
  // Loaded here, not at the top: Hono and the whole Application only load when the server starts.
  const { startServer } = await import("../server/start-server.js");
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
