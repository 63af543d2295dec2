// `agentforge serve`: the REST API and the /mcp page, until SIGINT or SIGTERM.
import { parseArgs } from "node:util";
import { ALLOWED_HOSTS_VARIABLE, API_TOKEN_VARIABLE } from "../http/request-guard.js";
import { databaseUrlFrom } from "../run-store/database-url.js";
import { writeErr } from "../shared/terminal-safe.js";
import { UsageError } from "../shared/usage-error.js";
import { warnOnStderr } from "../shared/warnings.js";
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
      "max-runs": { type: "string" },
      "health-interval": { type: "string" },
      "watch-config": { type: "boolean" },
      "database-url": { type: "string" },
      "run-lease-seconds": { type: "string" },
      "queue-maintenance-seconds": { type: "string" },
      otel: { type: "boolean" },
      "confirmation-ttl": { type: "string" },
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
  const maxRuns = values["max-runs"] ?? "4";
  if (!/^\d{1,4}$/.test(maxRuns) || Number(maxRuns) < 1 || Number(maxRuns) > 1000)
    throw new UsageError(`--max-runs expects an integer from 1 to 1000, got "${maxRuns}"`);
  const healthInterval = values["health-interval"] ?? "30";
  if (
    !/^\d{1,6}(\.\d{1,3})?$/.test(healthInterval) ||
    (Number(healthInterval) !== 0 && Number(healthInterval) < 0.1)
  )
    throw new UsageError(
      `--health-interval expects seconds (0 turns polling off, else at least 0.1), got "${healthInterval}"`,
    );
  const database = databaseUrlFrom(values["database-url"], process.env);
  const leaseSeconds = secondsFlag("--run-lease-seconds", values["run-lease-seconds"], 2, 86_400);
  const maintenanceSeconds = secondsFlag(
    "--queue-maintenance-seconds",
    values["queue-maintenance-seconds"],
    1,
    3_600,
  );
  if (!database && (leaseSeconds !== undefined || maintenanceSeconds !== undefined)) {
    throw new UsageError(
      "--run-lease-seconds and --queue-maintenance-seconds apply to the PostgreSQL run store only; set --database-url or DATABASE_URL",
    );
  }
  const confirmationTtlMs = durationFlag("--confirmation-ttl", values["confirmation-ttl"]);
  const token = process.env[API_TOKEN_VARIABLE] || undefined;
  const hosts = process.env[ALLOWED_HOSTS_VARIABLE]
    ?.split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  // Loaded here, not at the top: Hono and the whole Application only load when the server starts.
  const { startServer } = await import("../http/start-server.js");
  // Tracing (helper TR's module): OTLP with --otel or OTEL_* variables, LangSmith with LANGSMITH_*.
  const { startTracing } = await import("../tracing/tracing.js");
  const tracing = await startTracing({
    env: process.env,
    serviceName: "agentforge-serve",
    ...(values.otel ? { otel: true } : {}),
  });
  for (const note of tracing.notes) writeErr(`agentforge serve: ${note}`);
  const server = await startServer({
    host,
    port: Number(port),
    ...(values.config ? { configPath: values.config } : {}),
    ...(values["state-dir"] ? { stateDir: values["state-dir"] } : {}),
    ...(values["allowed-base"] ? { allowedBase: values["allowed-base"] } : {}),
    ...(token ? { token } : {}),
    ...(hosts?.length ? { allowedHosts: hosts } : {}),
    checkOnStart: values["no-check"] !== true,
    maxRuns: Number(maxRuns),
    healthIntervalMs: Math.round(Number(healthInterval) * 1000),
    watchConfig: values["watch-config"] === true,
    ...(tracing.tracer ? { tracer: tracing.tracer } : {}),
    ...(confirmationTtlMs !== undefined ? { confirmationTtlMs } : {}),
    ...(database
      ? {
          database: {
            url: database.url,
            variable: database.source,
            ...(leaseSeconds !== undefined ? { leaseSeconds } : {}),
            ...(maintenanceSeconds !== undefined ? { maintenanceSeconds } : {}),
          },
        }
      : {}),
  }).catch(async (error: unknown) => {
    await tracing
      .shutdown()
      .catch((cause: unknown) =>
        warnOnStderr({ code: "SHUTDOWN_STEP_FAILED", message: "tracing did not shut down cleanly", cause }),
      );
    throw error;
  });
  process.stderr.write(
    `agentforge serve: listening on ${server.url} (dashboard ${server.url}/mcp; runs under ${server.allowedBase}; runs kept in ${database ? `PostgreSQL (${database.source})` : "files"}; instance ${server.instanceId}; pid ${process.pid})${token ? " (bearer token required)" : ""}\n`,
  );
  // SIGHUP: read the config file again and apply it (only changed servers restart).
  const onHangup = () => {
    server.reload().catch((error: unknown) => {
      process.stderr.write(
        `agentforge serve: SIGHUP: the config was not applied (the running roster stays): ${error instanceof Error ? error.message : String(error)}\n`,
      );
    });
  };
  process.on("SIGHUP", onHangup);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.off("SIGHUP", onHangup);
      process.stderr.write("agentforge serve: stopping (active runs are paused; resume them later)\n");
      setTimeout(() => process.exit(1), FORCE_EXIT_MS).unref();
      void server
        .close()
        .then(() => tracing.shutdown())
        .finally(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  return 0;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration (`90s`, `30m`, `24h`, `7d`, `500ms`; a bare number is seconds) from 1 s to 30 days, in ms;
 * undefined when the flag is not given.
 */
export function durationFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{1,9}(?:\.\d{1,3})?)(ms|s|m|h|d)?$/.exec(value.trim());
  const ms = match ? Number(match[1]) * (UNIT_MS[match[2] ?? "s"] as number) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 1000 || ms > 30 * 86_400_000)
    throw new UsageError(
      `${flag} expects a duration from 1s to 30d (e.g. 90s, 30m, 24h, 7d; a bare number is seconds), got "${value}"`,
    );
  return Math.round(ms);
}

/** A whole number of seconds from `min` to `max`, or undefined when the flag is not given. */
function secondsFlag(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`${flag} expects whole seconds from ${min} to ${max}, got "${value}"`);
  return Number(value);
}
