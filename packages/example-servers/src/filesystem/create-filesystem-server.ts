import { extname } from "node:path";
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { SERVER_OPTIONS } from "../internal/server-options.js";
import { VERSION } from "../internal/version.js";
import { directoryTree } from "./directory-tree.js";
import {
  DEFAULT_MAX_MEDIA_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  type FilesystemLimits,
  filesystemLimits,
  readMediaFileDescription,
} from "./filesystem-limits.js";
import { listDirectory, listDirectoryWithSizes } from "./list-directory.js";
import { NotTextError, readAll, readText, type TextSelection } from "./read-text.js";
import { formatCount, formatLimit, formatSize, jsonSize, ResponseBudget } from "./response-budget.js";
import {
  describeErrno,
  MAX_PATH_LENGTH,
  type ResolvedPath,
  Sandbox,
  SandboxError,
  showPath,
} from "./sandbox.js";
import { searchFiles } from "./search-files.js";

export { DEFAULT_MAX_MEDIA_BYTES, DEFAULT_MAX_RESPONSE_BYTES, type FilesystemLimits, filesystemLimits };

/** Options of `createFilesystemServer`. */
export interface FilesystemServerOptions {
  /** Directories the server may read; each must exist. Everything else is refused. */
  roots: readonly string[];
  /**
   * Most bytes of text one tool result may carry, measured JSON-encoded (default 1 MiB). The reply holds
   * it twice (`content` and `structuredContent`), so the default keeps every message near 2 MiB.
   */
  maxResponseBytes?: number;
  /** Largest file `read_media_file` returns, in bytes before base64 (default 2 MiB). */
  maxMediaBytes?: number;
}

const MIME_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".svg": "image/svg+xml",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".ogg": "audio/ogg",
  ".flac": "audio/flac",
};

const NOTE_RESERVE = 512;

/** The request `_meta` key that narrows one call's sandbox to some of the allowed directories. */
export const NARROW_ROOTS_META = "io.agentforge/roots";
const MAX_NARROW_ROOTS = 16;
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
const textOutput = z.object({ content: z.string() });

const textResult = (text: string) => ({
  content: [{ type: "text" as const, text }],
  structuredContent: { content: text },
});

const errnoOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;

/** A message for a failure on a path the caller named, never echoing a system path. */
function failure(error: unknown, requested: string): Error {
  if (error instanceof SandboxError) return error;
  if (error instanceof NotTextError) {
    return new Error(
      `${showPath(requested)} looks like a binary file, not text; use read_media_file to get it base64-encoded`,
    );
  }
  return new Error(`Cannot read ${showPath(requested)}: ${describeErrno(errnoOf(error))}`);
}

function lineCount(name: "head" | "tail", value: number | undefined): number | undefined {
  if (value === undefined || value === 0) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new Error(`"${name}" must be a whole number of lines (1 or more), got ${value}`);
  }
  return value;
}

/** Most `excludePatterns` one call may give (each is checked against every entry of the walk). */
const MAX_EXCLUDE_PATTERNS = 1000;

function checkPatterns(patterns: string[]): string[] {
  if (patterns.length > MAX_EXCLUDE_PATTERNS) {
    throw new Error(
      `"excludePatterns" has ${patterns.length} patterns; at most ${MAX_EXCLUDE_PATTERNS} are accepted`,
    );
  }
  return patterns;
}

/** A glob the matcher refuses (too long, too many alternatives) becomes an error naming the arguments. */
async function patternErrors<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof RangeError)
      throw new Error(`Invalid "pattern" or "excludePatterns": ${error.message}`);
    throw error;
  }
}

/** Read text from a resolved file within `budget`, with a note when the budget cut it short. */
function readTextFile(
  sandbox: Sandbox,
  target: ResolvedPath,
  selection: TextSelection,
  budget: number,
): string {
  const file = sandbox.openFile(target);
  try {
    const read = readText(file.fd, file.stats.size, selection, budget - NOTE_RESERVE);
    if (!read.truncated) return read.text;
    const limit = formatLimit(budget);
    const shown = `${formatCount(read.lines)} lines, ${formatSize(read.bytes)} of ${formatSize(file.stats.size)}`;
    const hint =
      selection.tail !== undefined
        ? `showing the last ${shown}; ask for fewer "tail" lines`
        : selection.head !== undefined
          ? `showing the first ${shown}; ask for fewer "head" lines`
          : `showing the first ${shown}; read the end with "tail", or a part with "head"`;
    return `${read.text}${read.text.endsWith("\n") ? "\n" : "\n\n"}[truncated: ${hint} (this response is capped at ${limit})]`;
  } finally {
    sandbox.close(file.fd);
  }
}

/**
 * Build a filesystem server on an existing sandbox (the bin shares one sandbox between HTTP sessions).
 * Tools, schemas and result shapes are those of the official reference server's read-only tools.
 */
export function buildFilesystemServer(base: Sandbox, limits: FilesystemLimits): McpServer {
  const server = new McpServer({ name: "agentforge-filesystem", version: VERSION }, SERVER_OPTIONS);
  const limit = limits.maxResponseBytes;
  const narrowed = new Map<string, Sandbox>();
  /**
   * The sandbox of one call: the server's own, or narrower when the request's `_meta` names
   * `io.agentforge/roots` (a client confining one caller — e.g. one agent run on a shared server — to its
   * folders). Every check, including the re-check after opening, then runs against those roots.
   */
  const sandboxOf = (ctx: { mcpReq: { _meta?: Record<string, unknown> | undefined } }): Sandbox => {
    const requested = ctx.mcpReq._meta?.[NARROW_ROOTS_META];
    if (requested === undefined) return base;
    if (
      !Array.isArray(requested) ||
      requested.length === 0 ||
      requested.length > MAX_NARROW_ROOTS ||
      !requested.every(
        (root) => typeof root === "string" && root.length > 0 && root.length <= MAX_PATH_LENGTH,
      )
    ) {
      throw new SandboxError(
        `_meta["${NARROW_ROOTS_META}"] must be a list of 1 to ${MAX_NARROW_ROOTS} directory paths inside the allowed directories`,
      );
    }
    const key = JSON.stringify(requested);
    let sandbox = narrowed.get(key);
    if (!sandbox) {
      sandbox = base.narrow(requested as string[]);
      if (narrowed.size >= 256) narrowed.delete(narrowed.keys().next().value as string);
      narrowed.set(key, sandbox);
    }
    return sandbox;
  };

  type Ctx = Parameters<typeof sandboxOf>[0];
  const readTextHandler = async (
    args: {
      path: string;
      head?: number | undefined;
      tail?: number | undefined;
    },
    ctx: Ctx,
  ) => {
    const sandbox = sandboxOf(ctx);
    const head = lineCount("head", args.head);
    const tail = lineCount("tail", args.tail);
    if (head !== undefined && tail !== undefined) {
      throw new Error('Cannot specify both "head" and "tail": ask for the first lines or for the last lines');
    }
    const target = sandbox.resolve(args.path);
    try {
      return textResult(readTextFile(sandbox, target, { head, tail }, limit));
    } catch (error) {
      throw failure(error, args.path);
    }
  };
  const readTextInput = z.object({
    path: z.string().describe("File to read (absolute, or relative to the first allowed directory)"),
    tail: z.number().optional().describe("If given, return only the last N lines of the file"),
    head: z.number().optional().describe("If given, return only the first N lines of the file"),
  });

  server.registerTool(
    "read_file",
    {
      title: "Read File (Deprecated)",
      description:
        "Read a text file. Deprecated alias of read_text_file, kept for existing prompts; use read_text_file.",
      inputSchema: readTextInput,
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    readTextHandler,
  );

  server.registerTool(
    "read_text_file",
    {
      title: "Read Text File",
      description:
        "Read a file inside the allowed directories as UTF-8 text. Use 'head' for the first N lines or 'tail' for the last N lines (not both); " +
        "only those lines are read from disk. Large files are cut at the response limit with a note. Binary files are refused: use read_media_file.",
      inputSchema: readTextInput,
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    readTextHandler,
  );

  server.registerTool(
    "read_media_file",
    {
      title: "Read Media File",
      description: readMediaFileDescription(limits.maxMediaBytes),
      inputSchema: z.object({ path: z.string().describe("File to read") }),
      outputSchema: z.object({
        content: z.array(
          z.union([
            z.object({ type: z.enum(["image", "audio"]), data: z.string(), mimeType: z.string() }),
            z.object({
              type: z.literal("resource"),
              resource: z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
            }),
          ]),
        ),
      }),
      annotations: READ_ONLY,
    },
    async (args, ctx) => {
      const sandbox = sandboxOf(ctx);
      const target = sandbox.resolve(args.path);
      let data: string;
      try {
        const file = sandbox.openFile(target);
        try {
          if (file.stats.size > limits.maxMediaBytes) {
            throw new SandboxError(
              `${showPath(args.path)} is ${formatSize(file.stats.size)}; read_media_file returns files up to ${formatLimit(limits.maxMediaBytes)}`,
            );
          }
          data = readAll(file.fd, file.stats.size).toString("base64");
        } finally {
          sandbox.close(file.fd);
        }
      } catch (error) {
        throw failure(error, args.path);
      }
      const mimeType = MIME_TYPES[extname(target.real).toLowerCase()] ?? "application/octet-stream";
      const item = mimeType.startsWith("image/")
        ? { type: "image" as const, data, mimeType }
        : mimeType.startsWith("audio/")
          ? { type: "audio" as const, data, mimeType }
          : {
              type: "resource" as const,
              resource: { uri: pathToFileURL(target.real).href, mimeType, blob: data },
            };
      return { content: [item], structuredContent: { content: [item] } };
    },
  );

  server.registerTool(
    "read_multiple_files",
    {
      title: "Read Multiple Files",
      description:
        "Read several text files at once; each comes back under its path, separated by '---'. A file that cannot be read gives an error line " +
        "for that file only. The whole response is capped; files beyond the cap are listed as not shown.",
      inputSchema: z.object({
        paths: z.array(z.string()).min(1).describe("Files to read, each inside the allowed directories"),
      }),
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    async (args, ctx) => {
      const sandbox = sandboxOf(ctx);
      const budget = new ResponseBudget(limit);
      const separator = "\n---\n";
      const pieces: string[] = [];
      let omitted = 0;
      for (let i = 0; i < args.paths.length; i++) {
        const requested = args.paths[i] as string;
        const overhead = (i > 0 ? jsonSize(separator) : 0) + jsonSize(`${requested}:\n\n`);
        const room = budget.remaining - NOTE_RESERVE - overhead;
        if (room < 1024) {
          omitted = args.paths.length - i;
          break;
        }
        let piece: string;
        try {
          piece = `${requested}:\n${readTextFile(sandbox, sandbox.resolve(requested), {}, room)}\n`;
        } catch (error) {
          piece = `${requested}: Error - ${failure(error, requested).message}`;
        }
        const cost = jsonSize(piece) + (i > 0 ? jsonSize(separator) : 0);
        if (cost > budget.remaining - NOTE_RESERVE) {
          omitted = args.paths.length - i;
          break;
        }
        budget.used += cost;
        pieces.push(piece);
      }
      let text = pieces.join(separator);
      if (omitted > 0) {
        text += `${separator}[truncated: ${formatCount(omitted)} more files not shown — this response is capped at ${formatLimit(limit)}; read them in smaller batches]`;
      }
      return textResult(text);
    },
  );

  server.registerTool(
    "list_directory",
    {
      title: "List Directory",
      description:
        "List the entries of a directory inside the allowed directories, one per line, marked [DIR] or [FILE] (symlinks are listed as [FILE] and never followed).",
      inputSchema: z.object({ path: z.string().describe("Directory to list") }),
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    async (args, ctx) => {
      const sandbox = sandboxOf(ctx);
      return textResult(listDirectory(sandbox, sandbox.resolve(args.path), limit));
    },
  );

  server.registerTool(
    "list_directory_with_sizes",
    {
      title: "List Directory with Sizes",
      description:
        "List the entries of a directory with [DIR]/[FILE] markers and file sizes, sorted by name or by size (largest first), followed by totals.",
      inputSchema: z.object({
        path: z.string().describe("Directory to list"),
        sortBy: z
          .enum(["name", "size"])
          .optional()
          .default("name")
          .describe("Sort entries by name or by size"),
      }),
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    async (args, ctx) => {
      const sandbox = sandboxOf(ctx);
      return textResult(
        await listDirectoryWithSizes(sandbox, sandbox.resolve(args.path), args.sortBy ?? "name", limit),
      );
    },
  );

  server.registerTool(
    "directory_tree",
    {
      title: "Directory Tree",
      description:
        "Recursive tree of a directory as JSON (2-space indented): each entry has 'name' and 'type' (file/directory), directories a 'children' array. " +
        "Symlinks are listed as files and never followed. 'excludePatterns' (globs, or plain names matched at any depth) skip entries and everything below them. " +
        "Large trees are cut at the response limit with a note giving the number of entries left out.",
      inputSchema: z.object({
        path: z.string().describe("Directory to start from"),
        excludePatterns: z
          .array(z.string())
          .optional()
          .default([])
          .describe("Glob patterns or names to leave out"),
      }),
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    async (args, ctx) => {
      const sandbox = sandboxOf(ctx);
      const excludePatterns = checkPatterns(args.excludePatterns ?? []);
      const target = sandbox.resolve(args.path);
      return textResult(
        await patternErrors(directoryTree(sandbox, target, excludePatterns, limit, ctx.mcpReq.signal)),
      );
    },
  );

  server.registerTool(
    "search_files",
    {
      title: "Search Files",
      description:
        "Find files and directories whose path relative to 'path' matches a glob 'pattern' ('*.ts' for the top level, '**/*.ts' at any depth, " +
        "'{a,b}', '[abc]', '?'). Returns full paths, one per line. 'excludePatterns' are globs skipped before descending. Symlinks are never followed.",
      inputSchema: z.object({
        path: z.string().describe("Directory to search in"),
        pattern: z.string().describe("Glob matched against paths relative to 'path'"),
        excludePatterns: z.array(z.string()).optional().default([]).describe("Globs to skip"),
      }),
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    async (args, ctx) => {
      const sandbox = sandboxOf(ctx);
      const excludePatterns = checkPatterns(args.excludePatterns ?? []);
      const target = sandbox.resolve(args.path);
      return textResult(
        await patternErrors(
          searchFiles(sandbox, target, args.pattern, excludePatterns, limit, ctx.mcpReq.signal),
        ),
      );
    },
  );

  server.registerTool(
    "get_file_info",
    {
      title: "Get File Info",
      description:
        "Metadata of a file or directory inside the allowed directories: size, created, modified and accessed times, type and permissions.",
      inputSchema: z.object({ path: z.string().describe("File or directory") }),
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    async (args, ctx) => {
      const sandbox = sandboxOf(ctx);
      const stats = sandbox.statPath(sandbox.resolve(args.path));
      const info = {
        size: stats.size,
        created: stats.birthtime,
        modified: stats.mtime,
        accessed: stats.atime,
        isDirectory: stats.isDirectory(),
        isFile: stats.isFile(),
        permissions: stats.mode.toString(8).slice(-3),
      };
      return textResult(
        Object.entries(info)
          .map(([key, value]) => `${key}: ${String(value)}`)
          .join("\n"),
      );
    },
  );

  server.registerTool(
    "list_allowed_directories",
    {
      title: "List Allowed Directories",
      description:
        "The directories this server may read (their real paths). Everything below them is readable; nothing else is. Relative paths resolve against the first.",
      inputSchema: z.object({}),
      outputSchema: textOutput,
      annotations: READ_ONLY,
    },
    async (_args, ctx) => textResult(`Allowed directories:\n${sandboxOf(ctx).roots.join("\n")}`),
  );

  return server;
}

/**
 * A read-only, sandboxed filesystem MCP server with the official reference server's read-only tools.
 * Throws an `Error` when a root does not exist or is not a directory, or a limit is invalid.
 */
export function createFilesystemServer(options: FilesystemServerOptions): McpServer {
  if (typeof options !== "object" || options === null) {
    throw new Error("createFilesystemServer expects an options object with `roots`");
  }
  const limits = filesystemLimits(options);
  return buildFilesystemServer(Sandbox.create(options.roots), limits);
}
