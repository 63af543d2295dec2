// The HTTP limits a bin reads from its environment (next to MCP_HTTP_TOKEN and MCP_ALLOWED_HOSTS).
import type { ServeHttpOptions } from "../serve-http.js";
import { UsageError } from "./usage-error.js";

type LimitName = Exclude<keyof ServeHttpOptions, "host" | "port" | "token" | "allowedHosts">;

interface LimitVariable {
  name: string;
  option: LimitName;
  unit: "count" | "bytes" | "seconds";
  min: number;
  description: string;
}

/** Every limit variable, in the order the usage text lists them. */
export const HTTP_LIMIT_VARIABLES: readonly LimitVariable[] = [
  {
    name: "MCP_HTTP_MAX_SESSIONS",
    option: "maxSessions",
    unit: "count",
    min: 1,
    description: "most open sessions (default 1000)",
  },
  {
    name: "MCP_HTTP_MAX_SESSIONS_PER_CLIENT",
    option: "maxSessionsPerClient",
    unit: "count",
    min: 0,
    description: "most sessions per non-loopback client address (default 100; 0: no cap)",
  },
  {
    name: "MCP_HTTP_PENDING_SESSION_SECONDS",
    option: "pendingSessionMs",
    unit: "seconds",
    min: 0.001,
    description: "close sessions that never got past initialize after this (default 30)",
  },
  {
    name: "MCP_HTTP_SESSION_IDLE_SECONDS",
    option: "sessionIdleMs",
    unit: "seconds",
    min: 0.001,
    description: "close sessions with no request of their own for this long (default 1800)",
  },
  {
    name: "MCP_HTTP_MAX_BODY_BYTES",
    option: "maxBodyBytes",
    unit: "bytes",
    min: 1,
    description: "largest request body (default 4194304)",
  },
  {
    name: "MCP_HTTP_MAX_JSON_DEPTH",
    option: "maxJsonDepth",
    unit: "count",
    min: 1,
    description: "deepest JSON nesting accepted in a request body (default 64)",
  },
];

/** The `serveHttp` limits set in `env`; a malformed value is a UsageError naming the variable. */
export function httpLimitsFromEnv(env: NodeJS.ProcessEnv): Partial<ServeHttpOptions> {
  const limits: Partial<ServeHttpOptions> = {};
  for (const variable of HTTP_LIMIT_VARIABLES) {
    const text = env[variable.name]?.trim();
    if (!text) continue;
    const seconds = variable.unit === "seconds";
    const pattern = seconds ? /^\d+(\.\d+)?$/ : /^\d+$/;
    const value = Number(text);
    if (
      !pattern.test(text) ||
      !Number.isFinite(value) ||
      value < variable.min ||
      (!seconds && !Number.isSafeInteger(value))
    ) {
      const expected = seconds
        ? `a number of seconds of at least ${variable.min}`
        : `a whole number of at least ${variable.min}`;
      throw new UsageError(`${variable.name} expects ${expected}, got "${text}"`);
    }
    limits[variable.option] = seconds ? Math.max(1, Math.round(value * 1000)) : value;
  }
  return limits;
}
