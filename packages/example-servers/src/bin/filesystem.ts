import { type FilesystemLimits, filesystemLimits } from "../filesystem/filesystem-limits.js";
import { Sandbox } from "../filesystem/sandbox.js";
import { UsageError } from "../internal/parse-cli.js";
import { runServerCli } from "../internal/run-server-cli.js";
import { filesystemSnapshot } from "../internal/stdio-snapshots.js";
import { VERSION } from "../internal/version.js";

const MAX_LIMIT = 512 * 1024 * 1024;

function byteOption(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const bytes = Number(value);
  if (!/^\d+$/.test(value) || bytes < min || bytes > MAX_LIMIT) {
    throw new UsageError(
      `--${name} expects a whole number of bytes from ${min} to ${MAX_LIMIT}, got "${value}"`,
    );
  }
  return bytes;
}

// Not awaited: the bins are built as CommonJS, which has no top-level await (see tsup.config.ts).
void runServerCli({
  bin: "agentforge-filesystem",
  version: VERSION,
  summary: "read-only, sandboxed filesystem MCP server (the official server's read-only tools)",
  positionals: "[ROOT...]",
  options: [
    {
      name: "max-reply",
      valueName: "N",
      description: "cap in bytes on one tool result's text (default 1048576)",
    },
    {
      name: "max-media",
      valueName: "N",
      description: "largest file in bytes read_media_file returns (default 2097152)",
    },
  ],
  details: [
    "ROOT             a directory the server may read (several allowed); default: $WORKSPACE_ROOT.",
    "                 Every path is resolved through symlinks and must stay inside a ROOT.",
  ],
  async prepare(request) {
    const roots =
      request.positionals.length > 0
        ? request.positionals
        : process.env.WORKSPACE_ROOT
          ? [process.env.WORKSPACE_ROOT]
          : [];
    if (roots.length === 0) {
      throw new UsageError(
        "no allowed directory: pass one or more ROOT directories as arguments, or set WORKSPACE_ROOT",
      );
    }
    let limits: FilesystemLimits;
    let sandbox: Sandbox;
    try {
      limits = filesystemLimits({
        maxResponseBytes: byteOption("max-reply", request.options["max-reply"], 4096),
        maxMediaBytes: byteOption("max-media", request.options["max-media"], 1),
      });
      // Checks the roots at start (exit code 2 when one is missing); the server's own sandbox is built
      // when the server loads.
      sandbox = Sandbox.create(roots);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    return {
      // Loaded on first need: over stdio, initialize and tools/list are answered from the snapshot.
      // Its own sandbox on the same roots (this file's bundled copy of Sandbox only checks them, see
      // tsup.config.ts). The bin runs nothing else, so it may use the working directory (lstatChildren).
      create: async () => {
        const { buildFilesystemServer } = await import("../filesystem/create-filesystem-server.js");
        const { Sandbox: LoadedSandbox } = await import("../filesystem/sandbox.js");
        return buildFilesystemServer(LoadedSandbox.create(roots, { exclusiveProcess: true }), limits);
      },
      stdioSnapshot: filesystemSnapshot(limits),
      describe: `allowed: ${sandbox.roots.join(", ")}`,
    };
  },
});
