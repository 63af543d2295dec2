// The parts of src/ and the one direction between them: the public modules at the top level, and the
// folders of internal/, each with one job. A part may import only from the parts listed after it in
// LAYERS; an import that runs back up (and so a cycle between parts) fails here with its file and line.
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ImportEdge,
  importEdges,
  layerViolations,
  sourceFiles,
} from "@agentforge/build-config/folder-layers";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

/** Top to bottom. A part may import from any part listed after it, never from one before it. */
const LAYERS = [
  "index.ts", // the package's entry: re-exports only
  "mcp-client-manager.ts", // the manager: many servers, one process
  "create-transport.ts", // a transport for one server config, for callers who drive the SDK themselves
  "internal/lifecycle", // one server's connection life cycle: connect, reconnect, health, classified errors
  "internal/calls", // what one request does: tools/call (tasks, input rounds), resources, prompts, elicitation answers
  "internal/tools", // the tool list: paging, diffing, the output-schema validator
  "internal/connection", // what the connection modules share: their types, deadlines, quiet closing
  "internal/transport", // stdio or Streamable HTTP (SSE fallback) for one server config
  "internal/auth", // OAuth (authorization code, client credentials) and mTLS for HTTP servers
  "mcp-stdio-transport.ts", // our stdio client transport
  "internal/wire", // newline-delimited JSON-RPC: line decoding, reply ids, the exact fast reads
  "types.ts", // the public types of the manager
  "oauth-token-store.ts", // where logins are kept, and what a login may open
  "internal/opener", // the platform's URL opener and what it may be given
  "discover-tools.ts", // discovered tools as plain data
  "elicitation.ts", // the elicitation handler's types
  "resources.ts", // resources and prompts as plain data
  "errors.ts", // the client's error classes
  "internal/shared", // small helpers any part may use
];

/** `internal/<folder>` for a file in a folder of internal/, else the file's name at the top of src/. */
function partOf(file: string): string {
  const [first, second] = relative(SRC, file).split("/");
  return first === "internal" ? `internal/${second}` : (first as string);
}

const importsOf = (file: string) =>
  importEdges(file, partOf).map((edge) => ({ ...edge, where: relative(SRC, edge.where) }));
const violations = (edges: ImportEdge[]) => layerViolations(edges, LAYERS);

describe("the parts of src/", () => {
  const files = sourceFiles(SRC);

  it("are exactly the ones LAYERS names (a new folder gets a place and a job there)", () => {
    expect([...new Set(files.map(partOf))].sort()).toEqual([...LAYERS].sort());
  });

  it("reads imports of every kind (the checker sees edges)", () => {
    const manager = importsOf(join(SRC, "mcp-client-manager.ts"));
    expect(manager.some((edge) => edge.to === "internal/lifecycle")).toBe(true);
  });

  it("reports an import that runs back up (the checker can fail)", () => {
    expect(violations([{ from: "internal/shared", to: "internal/calls", where: "x.ts:1" }])).toEqual([
      "x.ts:1 internal/shared -> internal/calls",
    ]);
    expect(violations([{ from: "internal/calls", to: "internal/wire", where: "y.ts:2" }])).toEqual([]);
  });

  it("import only downwards, so no two parts import each other", () => {
    expect(violations(files.flatMap(importsOf))).toEqual([]);
  });

  it("have no two modules of the same name, so a search for one finds one", () => {
    const names = files.map((file) => file.split("/").pop() as string);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });
});
