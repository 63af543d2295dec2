// The app's folders and the one direction between them. Each folder of src/ has one job, and may import
// only from the folders below it in LAYERS; a new import that runs back up (and so a folder cycle) fails
// here with the file and the line that adds it. Static imports, re-exports and import() all count.
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ImportEdge,
  importEdges,
  layerViolations,
  sourceFiles,
  topPart,
} from "@agentforge/build-config/folder-layers";
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

/** The part of src/ a file belongs to: its top-level folder, or the file itself at the top. */
const partOf = (file: string) => topPart(SRC, file);
const importsOf = (file: string) =>
  importEdges(file, partOf).map((edge) => ({ ...edge, where: relative(SRC, edge.where) }));
const violations = (edges: ImportEdge[]) => layerViolations(edges, LAYERS);

describe("the folders of src/", () => {
  const files = sourceFiles(SRC);

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
