// Command-line parsing shared by every server bin: --help, --version, --http, --host, --port, plus the
// server's own positionals/options. Usage errors exit with code 2.
import type { parseArgs as ParseArgs } from "node:util";
import { HTTP_LIMIT_VARIABLES } from "./http-env.js";
import { UsageError } from "./usage-error.js";

export { UsageError };

/** A server-specific option (always a string value). */
export interface CliOption {
  name: string;
  description: string;
  valueName: string;
}

export interface CliSpec {
  /** The bin name, e.g. `agentforge-filesystem`. */
  bin: string;
  version: string;
  /** One line saying what the server does. */
  summary: string;
  /** Positional arguments as shown in the usage line, e.g. `[ROOT...]`; omit for none. */
  positionals?: string;
  /** Lines describing positionals and environment variables. */
  details?: string[];
  options?: CliOption[];
}

export type CliRequest =
  | { kind: "help"; text: string }
  | { kind: "version"; text: string }
  | {
      kind: "serve";
      transport: "stdio" | "http";
      host: string;
      port: number;
      positionals: string[];
      options: Record<string, string | undefined>;
    };

/** Two columns, the first as wide as its longest entry. */
function optionLines(rows: [flag: string, description: string][]): string[] {
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return rows.map(([flag, description]) => `  ${flag.padEnd(width)}${description}`);
}

export function usage(spec: CliSpec): string {
  const lines = [
    `${spec.bin} ${spec.version} — ${spec.summary}`,
    "",
    `Usage: ${spec.bin} [--http [--host HOST] [--port PORT]]${spec.options?.map((o) => ` [--${o.name} ${o.valueName}]`).join("") ?? ""}${spec.positionals ? ` ${spec.positionals}` : ""}`,
    "",
    "Speaks MCP over stdio by default (for desktop and editor MCP clients).",
    "",
    "Options:",
    ...optionLines([
      ["--http", "serve Streamable HTTP at /mcp instead of stdio"],
      ["--host HOST", "interface to bind with --http (default 127.0.0.1); anything but loopback"],
      ["", "requires a bearer token in MCP_HTTP_TOKEN"],
      ["--port PORT", "port to bind with --http (default 0: any free port, printed on stderr)"],
      ...(spec.options ?? []).map((o): [string, string] => [`--${o.name} ${o.valueName}`, o.description]),
      ["-h, --help", "show this help"],
      ["-v, --version", "show the version"],
    ]),
    ...(spec.details && spec.details.length > 0 ? ["", ...spec.details] : []),
    "",
    "Environment (with --http):",
    ...optionLines([
      ["MCP_HTTP_TOKEN", "bearer token required on every HTTP request (required off loopback)"],
      ["MCP_ALLOWED_HOSTS", "comma-separated Host header values accepted off loopback"],
      ...HTTP_LIMIT_VARIABLES.map((v): [string, string] => [v.name, v.description]),
    ]),
  ];
  return `${lines.join("\n")}\n`;
}

export function parseCli(argv: readonly string[], spec: CliSpec): CliRequest {
  const extra = Object.fromEntries((spec.options ?? []).map((o) => [o.name, { type: "string" as const }]));
  let parsed: ReturnType<typeof ParseArgs>;
  try {
    // Not `import { parseArgs } from "node:util"`: that builds node:util's whole ESM namespace (and
    // loads what its lazy exports need) at every bin's start.
    parsed = process.getBuiltinModule("node:util").parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: spec.positionals !== undefined,
      options: {
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
        http: { type: "boolean" },
        host: { type: "string" },
        port: { type: "string" },
        ...extra,
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) return { kind: "help", text: usage(spec) };
  if (values.version) return { kind: "version", text: `${spec.version}\n` };
  const http = values.http === true;
  if (!http && (values.host !== undefined || values.port !== undefined)) {
    throw new UsageError("--host and --port only apply with --http");
  }
  const portText = typeof values.port === "string" ? values.port : "0";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new UsageError(`--port expects an integer from 0 to 65535, got "${portText}"`);
  }
  const host = typeof values.host === "string" ? values.host : "127.0.0.1";
  if (host.trim() === "") throw new UsageError("--host expects an interface address, got an empty string");
  const options: Record<string, string | undefined> = {};
  for (const option of spec.options ?? []) {
    const value = values[option.name];
    options[option.name] = typeof value === "string" ? value : undefined;
  }
  return {
    kind: "serve",
    transport: http ? "http" : "stdio",
    host,
    port,
    positionals: parsed.positionals,
    options,
  };
}
