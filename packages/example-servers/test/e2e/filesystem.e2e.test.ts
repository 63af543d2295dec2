import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  dialectsOf,
  type HostileTree,
  interfaceOf,
  makeHostileTree,
  referenceTools,
  SCHEMA_DIALECT,
} from "./filesystem-fixtures.js";
import { connectHttp, connectStdio, type Era, runBin, startBin, stopAll, textOf } from "./helpers.js";

const WRITE_TOOLS = ["write_file", "edit_file", "create_directory", "move_file"];

let tree: HostileTree;
const clients: Client[] = [];
beforeAll(() => {
  tree = makeHostileTree();
  // A tiny PNG (signature + IHDR) and a binary blob.
  writeFileSync(join(tree.root, "pixel.png"), Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"));
  writeFileSync(join(tree.root, "blob.bin"), Buffer.from([0, 1, 2, 3, 255]));
  mkdirSync(join(tree.root, "big"));
  writeFileSync(
    join(tree.root, "big", "lines.txt"),
    `${Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`).join("\n")}\n`,
  );
});
afterAll(() => tree.cleanup());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stopAll();
});

const keep = (client: Client) => {
  clients.push(client);
  return client;
};
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args });

async function exercise(client: Client) {
  const { tools } = await client.listTools();
  // Schema parity: every read-only tool of the reference, identical once descriptions are removed (and
  // the SDK's dialect marker and tasks field, see interfaceOf).
  const reference = referenceTools("filesystem.json").filter((t) => !WRITE_TOOLS.includes(t.name));
  expect(tools.map((t) => t.name).sort()).toEqual(reference.map((t) => t.name).sort());
  for (const tool of tools) {
    expect(tool.description, tool.name).toBeTruthy();
    expect(interfaceOf(tool)).toEqual(interfaceOf(reference.find((r) => r.name === tool.name)));
  }
  expect(new Set(dialectsOf(tools))).toEqual(new Set([SCHEMA_DIALECT]));

  const allowed = await call(client, "list_allowed_directories", {});
  expect(allowed.structuredContent).toEqual({ content: `Allowed directories:\n${tree.root}` });

  for (const name of ["read_text_file", "read_file"]) {
    const read = await call(client, name, { path: "ok.txt" });
    expect(read.content).toEqual([{ type: "text", text: "inside\nline two\n" }]);
    expect(read.structuredContent).toEqual({ content: "inside\nline two\n" });
  }
  expect(textOf(await call(client, "read_text_file", { path: join(tree.root, "sub/inner.txt") }))).toBe(
    "inner file\n",
  );
  expect(textOf(await call(client, "read_text_file", { path: "big/lines.txt", head: 2 }))).toBe(
    "line 1\nline 2",
  );
  expect(textOf(await call(client, "read_text_file", { path: "big/lines.txt", tail: 2 }))).toBe(
    "line 19999\nline 20000\n",
  );
  const both = await call(client, "read_text_file", { path: "ok.txt", head: 1, tail: 1 });
  expect(both.isError).toBe(true);
  expect(textOf(both)).toContain('Cannot specify both "head" and "tail"');
  const negative = await call(client, "read_text_file", { path: "ok.txt", head: -3 });
  expect(textOf(negative)).toContain('"head" must be a whole number of lines');
  const binary = await call(client, "read_text_file", { path: "blob.bin" });
  expect(binary.isError).toBe(true);
  expect(textOf(binary)).toBe(
    '"blob.bin" looks like a binary file, not text; use read_media_file to get it base64-encoded',
  );
  const missing = await call(client, "read_text_file", { path: "nope.txt" });
  expect(textOf(missing)).toBe('Cannot open "nope.txt": no such file or directory');
  const directory = await call(client, "read_text_file", { path: "sub" });
  expect(textOf(directory)).toContain('"sub" is a directory, not a file');

  const image = await call(client, "read_media_file", { path: "pixel.png" });
  const item = { type: "image", data: "iVBORw0KGgoAAAANSUhEUg==", mimeType: "image/png" };
  expect(image.content).toEqual([item]);
  expect(image.structuredContent).toEqual({ content: [item] });
  const blob = await call(client, "read_media_file", { path: "blob.bin" });
  expect(blob.content).toEqual([
    {
      type: "resource",
      resource: {
        uri: `file://${join(tree.root, "blob.bin")}`,
        mimeType: "application/octet-stream",
        blob: "AAECA/8=",
      },
    },
  ]);

  const many = await call(client, "read_multiple_files", { paths: ["ok.txt", "nope.txt", "sub/inner.txt"] });
  expect(textOf(many)).toBe(
    'ok.txt:\ninside\nline two\n\n\n---\nnope.txt: Error - Cannot open "nope.txt": no such file or directory\n---\nsub/inner.txt:\ninner file\n\n',
  );

  const list = textOf(await call(client, "list_directory", { path: "sub" }));
  expect(list).toBe("[FILE] back-to-root\n[DIR] deeper\n[FILE] inner.txt\n[FILE] up");
  const sized = textOf(await call(client, "list_directory_with_sizes", { path: "sub", sortBy: "size" }));
  expect(sized.split("\n")[0]).toMatch(/^\[FILE\] back-to-root +\d+ B$/);
  expect(sized).toContain("[DIR] deeper");
  expect(sized).toMatch(/\n\nTotal: 3 files, 1 directories\nCombined size: \d+ B$/);

  const treeText = textOf(await call(client, "directory_tree", { path: "sub", excludePatterns: ["up"] }));
  expect(JSON.parse(treeText)).toEqual([
    { name: "back-to-root", type: "file" },
    { name: "deeper", type: "directory", children: [{ name: "deep.md", type: "file" }] },
    { name: "inner.txt", type: "file" },
  ]);
  expect(treeText).toBe(JSON.stringify(JSON.parse(treeText), null, 2));

  const found = textOf(await call(client, "search_files", { path: ".", pattern: "**/*.{md,png}" }));
  expect(found.split("\n")).toEqual([join(tree.root, "pixel.png"), join(tree.root, "sub/deeper/deep.md")]);
  const none = await call(client, "search_files", { path: ".", pattern: "*.zip" });
  expect(none.structuredContent).toEqual({ content: "No matches found" });

  const info = textOf(await call(client, "get_file_info", { path: "ok.txt" }));
  expect(info).toMatch(
    /^size: 16\ncreated: .+\nmodified: .+\naccessed: .+\nisDirectory: false\nisFile: true\npermissions: \d{3}$/,
  );
}

describe("agentforge-filesystem", () => {
  it.each<Era>(["auto", "legacy"])(
    "serves the reference server's read-only tools over stdio, with identical schemas (client era: %s)",
    async (era) => {
      await exercise(keep(await connectStdio("filesystem", [tree.root], {}, era)));
    },
  );

  it.each<Era>(["auto", "legacy"])(
    "serves them over Streamable HTTP on loopback, roots from WORKSPACE_ROOT (client era: %s)",
    async (era) => {
      const bin = await startBin("filesystem", ["--http", "--port", "0"], {
        env: { WORKSPACE_ROOT: tree.root },
      });
      expect(bin.stderr()).toContain(`allowed: ${tree.root}`);
      await exercise(keep(await connectHttp(bin.url, undefined, era)));
    },
  );

  it("requires the bearer token when MCP_HTTP_TOKEN is set", async () => {
    const bin = await startBin("filesystem", ["--http", tree.root], { env: { MCP_HTTP_TOKEN: "fs-token" } });
    await expect(connectHttp(bin.url)).rejects.toThrow(/401|Unauthorized/);
    await expect(connectHttp(bin.url, "nope")).rejects.toThrow(/401|Unauthorized/);
    const client = keep(await connectHttp(bin.url, "fs-token"));
    expect(textOf(await call(client, "read_text_file", { path: "ok.txt" }))).toBe("inside\nline two\n");
  });

  it("refuses to start without a root, with a missing root or a file as root (exit 2)", async () => {
    const none = await runBin("filesystem", [], { WORKSPACE_ROOT: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      "no allowed directory: pass one or more ROOT directories as arguments, or set WORKSPACE_ROOT",
    );
    expect(none.stdout).toBe("");
    const missing = await runBin("filesystem", [join(tree.base, "does-not-exist")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `allowed directory "${join(tree.base, "does-not-exist")}" does not exist`,
    );
    const file = await runBin("filesystem", [join(tree.root, "ok.txt")]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("is not a directory");
    const badLimit = await runBin("filesystem", ["--max-reply", "10", tree.root]);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain(
      '--max-reply expects a whole number of bytes from 4096 to 536870912, got "10"',
    );
    const help = await runBin("filesystem", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("[ROOT...]");
  });

  it("accepts several roots and resolves relative paths against the first", async () => {
    const client = keep(
      await connectStdio("filesystem", [join(tree.root, "sub"), join(tree.root, "ünïcødé")]),
    );
    expect(textOf(await call(client, "list_allowed_directories", {}))).toBe(
      `Allowed directories:\n${join(tree.root, "sub")}\n${join(tree.root, "ünïcødé")}`,
    );
    expect(textOf(await call(client, "read_text_file", { path: "inner.txt" }))).toBe("inner file\n");
    expect(
      textOf(await call(client, "read_text_file", { path: join(tree.root, "ünïcødé", "file.txt") })),
    ).toBe("in a unicode folder\n");
    const denied = await call(client, "read_text_file", { path: join(tree.root, "ok.txt") });
    expect(denied.isError).toBe(true);
  });

  it("a root given through a symlink is used by its real path; both spellings work", async () => {
    const alias = join(tree.base, "root-alias");
    symlinkSync(tree.root, alias);
    const client = keep(await connectStdio("filesystem", [alias]));
    expect(textOf(await call(client, "list_allowed_directories", {}))).toBe(
      `Allowed directories:\n${tree.root}`,
    );
    expect(textOf(await call(client, "read_text_file", { path: join(alias, "ok.txt") }))).toBe(
      "inside\nline two\n",
    );
    expect(textOf(await call(client, "read_text_file", { path: join(tree.root, "ok.txt") }))).toBe(
      "inside\nline two\n",
    );
    const sibling = await call(client, "read_text_file", { path: join(tree.evil, "secret.txt") });
    expect(textOf(sibling)).toContain("is outside the allowed directories");
  });
});
