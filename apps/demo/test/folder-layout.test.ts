// The app's folders and the one direction between them. Each folder of src/ has one job, and may import
// only from the folders below it in LAYERS; a new import that runs back up (and so a folder cycle) fails
// here with the file and the line that adds it. Static imports, re-exports and import() all count.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

/**
 * Top to bottom. A folder may import from any folder listed after it, never from one before it.
 * `cli.ts` and `playwright-launcher.ts` are the executables (the top).
 */
const LAYERS = [
  "cli.ts", // the `agentforge` executable: parses the command line, loads one command
  "playwright-launcher.ts", // the Chromium launcher the playwright MCP server is given
  "cli", // the commands and what they print or ask at a terminal
  "tracing", // OpenTelemetry / LangSmith back ends of `--trace`
  "http", // `serve`: the REST API, the /mcp page, the run manager behind them
  "docs-agent", // the Documentation agent: one run, its model, its workspace guard, the offline strategy
  "run-store", // where runs, their events and the audit trail live: files or PostgreSQL
  "mcp", // the operator's view of the MCP stack: list, inspect, health, reload, catalogs
  "app", // the wiring of one MCP stack: config, client manager, registry, policy, executor
  "shared", // small helpers every folder may use
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The part of src/ a file belongs to: its top-level folder, or the file itself at the top. */
function partOf(file: string): string {
  return relative(SRC, file).split("/")[0] as string;
}

interface Edge {
  from: string;
  to: string;
  where: string;
}

/** Every relative import of `file` (static, re-export, dynamic), with its line. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(file, "utf8");
  const edges: Edge[] = [];
  const pattern = /(?:\bfrom\s+|\bimport\s*\(\s*)"(\.{1,2}\/[^"]+)"/g;
  for (const match of text.matchAll(pattern)) {
    const target = resolve(dirname(file), match[1] as string);
    const line = text.slice(0, match.index).split("\n").length;
    edges.push({ from: partOf(file), to: partOf(target), where: `${relative(SRC, file)}:${line}` });
  }
  return edges;
}

/** The edges that run back up LAYERS (or leave it), as "file:line from -> to". */
function violations(edges: Edge[]): string[] {
  const rank = (part: string) => LAYERS.indexOf(part);
  return edges
    .filter((edge) => edge.from !== edge.to && !(rank(edge.from) >= 0 && rank(edge.to) > rank(edge.from)))
    .map((edge) => `${edge.where} ${edge.from} -> ${edge.to}`);
}

describe("the folders of src/", () => {
  const files = sources(SRC);

  it("are exactly the ones LAYERS names (a new folder gets a place and a job there)", () => {
    expect([...new Set(files.map(partOf))].sort()).toEqual([...LAYERS].sort());
  });

  it("reads imports of every kind (the checker sees edges)", () => {
    const cli = importsOf(join(SRC, "cli.ts"));
    expect(cli.some((edge) => edge.to === "cli")).toBe(true);
    const mcp = importsOf(join(SRC, "cli", "mcp.ts"));
    expect(mcp.some((edge) => edge.to === "mcp")).toBe(true);
  });

  it("reports an import that runs back up (the checker can fail)", () => {
    expect(violations([{ from: "run-store", to: "docs-agent", where: "x.ts:1" }])).toEqual([
      "x.ts:1 run-store -> docs-agent",
    ]);
    expect(violations([{ from: "http", to: "run-store", where: "y.ts:2" }])).toEqual([]);
  });

  it("import only downwards, so no two folders import each other", () => {
    expect(violations(files.flatMap(importsOf))).toEqual([]);
  });
});
