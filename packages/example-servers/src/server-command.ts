import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The first-party servers, by the name their bin carries (`agentforge-<name>`). */
export type FirstPartyServerName = "filesystem" | "local-tools" | "sequential-thinking" | "postgres";

/** The first-party server names, in the order the README lists them. */
export const FIRST_PARTY_SERVERS: readonly FirstPartyServerName[] = [
  "local-tools",
  "filesystem",
  "sequential-thinking",
  "postgres",
];

/** Options of `serverCommand`. */
export interface ServerCommandOptions {
  /** filesystem: the directory the server may read (else `roots`, else `$WORKSPACE_ROOT` at start). */
  root?: string;
  /** filesystem: several directories the server may read. */
  roots?: readonly string[];
  /**
   * Serve Streamable HTTP at `/mcp` instead of stdio (`--http`): `true` for 127.0.0.1 on any free port
   * (the server prints `listening on <url>` on stderr), or the host and port to bind.
   */
  http?: boolean | { host?: string; port?: number };
  /** Further command-line options, e.g. `["--max-reply", "65536"]` (see each bin's `--help`). */
  args?: readonly string[];
}

/** How to start a first-party server: a command and its arguments, ready for a roster entry. */
export interface ServerCommand {
  /** `process.execPath`: the Node.js running this program. */
  command: string;
  /** The bin's resolved path, then the options. */
  args: string[];
}

/** Where this module is, in the ESM build, the CJS build and the sources. */
function here(): string {
  return typeof __filename === "string" ? __filename : import.meta.url;
}

/**
 * The command line of a first-party server: `process.execPath` and the resolved path of its bin (no
 * `node_modules/.bin` lookup, no shell), then the options — to spread into a roster entry:
 * `{ name: "files", transport: "stdio", enabled: true, ...serverCommand("filesystem", { root }) }`.
 * Throws a `TypeError` naming the server for an unknown name, and an `Error` when the bin is not built.
 */
export function serverCommand(name: FirstPartyServerName, options: ServerCommandOptions = {}): ServerCommand {
  if (!FIRST_PARTY_SERVERS.includes(name)) {
    throw new TypeError(
      `serverCommand: "${String(name)}" is not a first-party server; expected one of ${FIRST_PARTY_SERVERS.join(", ")}`,
    );
  }
  const root = dirname(createRequire(here()).resolve("@agentforge/example-servers/package.json"));
  const bin = join(root, "dist", "bin", `${name}.js`);
  if (!existsSync(bin)) {
    throw new Error(
      `The bin of the ${name} server is missing at ${bin}: @agentforge/example-servers is not built. Fix: run its build (pnpm --filter @agentforge/example-servers build), or reinstall the package.`,
    );
  }
  const args = [bin];
  if (options.http) {
    args.push("--http");
    if (typeof options.http === "object") {
      if (options.http.host !== undefined) args.push("--host", options.http.host);
      if (options.http.port !== undefined) args.push("--port", String(options.http.port));
    }
  }
  if (options.args) args.push(...options.args);
  const roots = [...(options.root !== undefined ? [options.root] : []), ...(options.roots ?? [])];
  if (roots.length > 0 && name !== "filesystem") {
    throw new TypeError(`serverCommand: root and roots are options of the filesystem server, not of ${name}`);
  }
  // Roots last, after "--": a directory whose name starts with "-" is still a directory.
  if (roots.length > 0) args.push("--", ...roots);
  return { command: process.execPath, args };
}
