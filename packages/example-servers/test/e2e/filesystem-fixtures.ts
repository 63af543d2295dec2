// Temporary directory trees for the filesystem e2e tests (real files, real symlinks), and helpers to
// compare a tools/list with the reference JSON.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The secret that must never appear in any reply. */
export const SECRET = "TOP-SECRET-7f3a9c";

/** A sandbox layout: `root` (allowed) next to `outside` and a prefix sibling `root-evil` (not allowed). */
export interface HostileTree {
  base: string;
  root: string;
  outside: string;
  evil: string;
  cleanup(): void;
}

/** Build the hostile layout under a fresh temp dir (real paths, so /tmp symlinks do not matter). */
export function makeHostileTree(): HostileTree {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "af-fs-")));
  const root = join(base, "root");
  const outside = join(base, "outside");
  const evil = join(base, "root-evil");
  for (const dir of [root, outside, evil, join(root, "sub", "deeper"), join(outside, "nested")]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n${"x".repeat(12_345 - SECRET.length - 1)}`);
  writeFileSync(join(outside, "nested", "secret-nested.txt"), SECRET);
  writeFileSync(join(evil, "secret.txt"), SECRET);
  writeFileSync(join(root, "ok.txt"), "inside\nline two\n");
  writeFileSync(join(root, "sub", "inner.txt"), "inner file\n");
  writeFileSync(join(root, "sub", "deeper", "deep.md"), "# deep\n");
  writeFileSync(join(root, "日本語 ✓ é.txt"), "unicode name ✓\n");
  mkdirSync(join(root, "ünïcødé"));
  writeFileSync(join(root, "ünïcødé", "file.txt"), "in a unicode folder\n");
  symlinkSync(join(outside, "secret.txt"), join(root, "link-out-file"));
  symlinkSync(outside, join(root, "link-out-dir"));
  symlinkSync("../root-evil", join(root, "link-evil"));
  symlinkSync("ok.txt", join(root, "link-in"));
  symlinkSync("sub", join(root, "link-in-dir"));
  symlinkSync("loop-b", join(root, "loop-a"));
  symlinkSync("loop-a", join(root, "loop-b"));
  symlinkSync("self-loop", join(root, "self-loop"));
  symlinkSync("..", join(root, "sub", "up"));
  symlinkSync(root, join(root, "sub", "back-to-root"));
  return { base, root, outside, evil, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** Remove every `description` key, as the reference JSON was captured. */
export function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "description")
        .map(([key, v]) => [key, withoutDescriptions(v)]),
    );
  }
  return value;
}

/** The JSON Schema dialect the SDK (v2) declares on every tool schema: 2020-12, the 2026-07-28 default. */
export const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

/**
 * A tool's interface for the parity tests: without descriptions, `$schema` and `execution`. The
 * reference was captured from the official servers, built on SDK v1: they declare draft-07 and
 * `execution: { taskSupport: "forbidden" }`. SDK v2 declares 2020-12 (checked separately, `dialectsOf`)
 * and no tasks field (tasks left the protocol in 2026-07-28; absent means forbidden in 2025-11-25).
 * Everything else — names, titles, properties, types, bounds, required, annotations — must be equal.
 */
export function interfaceOf(tool: unknown): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => key !== "description" && key !== "$schema")
          .map(([key, v]) => [key, strip(v)]),
      );
    }
    return value;
  };
  const { execution: _execution, ...rest } = tool as Record<string, unknown>;
  return strip(rest);
}

/** The `$schema` of every input and output schema of these tools. */
export function dialectsOf(tools: { inputSchema?: unknown; outputSchema?: unknown }[]): unknown[] {
  return tools.flatMap((tool) =>
    [tool.inputSchema, tool.outputSchema]
      .filter((schema) => schema !== undefined)
      .map((schema) => (schema as { $schema?: unknown }).$schema),
  );
}

/** The tools of a reference JSON file in test/reference/ (the official servers' tools/list). */
export function referenceTools(file: string): { name: string }[] {
  const url = new URL(`../reference/${file}`, import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { tools: { name: string }[] }).tools;
}
