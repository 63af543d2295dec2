// `/core` and `/node` must not load zod (nor `/core` yaml) when they are imported: that is what keeps a
// CLI that loads and prints a roster fast. Checked on the source's static import graph (dynamic
// `import()` — the zod path of an invalid file — and `import type` are not followed).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const src = new URL("../src/", import.meta.url);

function packagesReachedFrom(entry: string): Set<string> {
  const reached = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: URL) => {
    if (seen.has(file.href)) return;
    seen.add(file.href);
    const text = readFileSync(file, "utf8");
    const statements = text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s+)?"([^"]+)";/gms);
    for (const [, specifier] of statements) {
      if (specifier === undefined) continue;
      if (specifier.startsWith(".")) visit(new URL(specifier.replace(/\.js$/, ".ts"), file));
      else reached.add(specifier);
    }
  };
  visit(new URL(entry, src));
  return reached;
}

describe("entries free of zod", () => {
  it("the graph walk sees zod from the root entry (the check can fail)", () => {
    expect(packagesReachedFrom("index.ts")).toContain("zod");
  });

  it("/core loads neither zod nor yaml", () => {
    const reached = packagesReachedFrom("core.ts");
    expect(reached.has("zod")).toBe(false);
    expect(reached.has("yaml")).toBe(false);
  });

  it("/node loads yaml but not zod (zod only through import() for a file that needs the schema)", () => {
    const reached = packagesReachedFrom("node.ts");
    expect(reached.has("zod")).toBe(false);
    expect(reached.has("yaml")).toBe(true);
    expect(readFileSync(new URL("node.ts", src), "utf8")).toContain('await import("./parse-mcp-config.js")');
  });
});
