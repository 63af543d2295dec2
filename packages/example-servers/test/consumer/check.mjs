// Run by scripts/consumer-check.mjs in a throw-away npm project with the tarballs installed.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { createLocalToolsServer } from "@agentforge/example-servers";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";

const server = createLocalToolsServer();
const client = new Client({ name: "consumer", version: "0" });
const [a, b] = InMemoryTransport.createLinkedPair();
await Promise.all([server.connect(a), client.connect(b)]);
const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
assert.equal(result.content[0].text, "hi");
await client.close();

// The bins are installed into node_modules/.bin and run with plain node.
const bin = createRequire(import.meta.url)
  .resolve("@agentforge/example-servers/package.json")
  .replace("package.json", "dist/bin/local-tools.js");
assert.match(execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" }), /^\d+\.\d+\.\d+\n$/);
assert.match(
  execFileSync("npx", ["--no-install", "agentforge-local-tools", "--help"], { encoding: "utf8" }),
  /agentforge-local-tools/,
);
// The filesystem server: embedded on a temporary root, and its bin (a real stdio process).
{
  const { mkdtempSync, writeFileSync, rmSync, realpathSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { createFilesystemServer, createSequentialThinkingServer } = await import(
    "@agentforge/example-servers"
  );
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const root = realpathSync(mkdtempSync(join(tmpdir(), "consumer-fs-")));
  try {
    writeFileSync(join(root, "note.txt"), "from the consumer\n");
    const fs = new Client({ name: "consumer", version: "0" });
    const [x, y] = InMemoryTransport.createLinkedPair();
    await Promise.all([createFilesystemServer({ roots: [root] }).connect(x), fs.connect(y)]);
    const read = await fs.callTool({ name: "read_text_file", arguments: { path: "note.txt" } });
    assert.deepEqual(read.structuredContent, { content: "from the consumer\n" });
    const denied = await fs.callTool({ name: "read_text_file", arguments: { path: "../outside.txt" } });
    assert.equal(denied.isError, true);
    await fs.close();
    assert.throws(() => createFilesystemServer({ roots: [join(root, "missing")] }), /does not exist/);

    const fsBin = createRequire(import.meta.url)
      .resolve("@agentforge/example-servers/package.json")
      .replace("package.json", "dist/bin/filesystem.js");
    // Both protocol eras over stdio: the 2025 handshake, and 2026-07-28 negotiated by the client.
    for (const [mode, era] of [
      ["legacy", "legacy"],
      ["auto", "modern"],
    ]) {
      const overStdio = new Client({ name: "consumer", version: "0" }, { versionNegotiation: { mode } });
      await overStdio.connect(new StdioClientTransport({ command: process.execPath, args: [fsBin, root] }));
      assert.equal(overStdio.getProtocolEra(), era);
      const listed = await overStdio.callTool({ name: "list_directory", arguments: { path: root } });
      assert.equal(listed.content[0].text, "[FILE] note.txt");
      await overStdio.close();
    }
    assert.match(
      execFileSync("npx", ["--no-install", "agentforge-filesystem", "--help"], { encoding: "utf8" }),
      /agentforge-filesystem/,
    );
    assert.throws(
      () => execFileSync(process.execPath, [fsBin], { stdio: "pipe", env: { PATH: process.env.PATH } }),
      (error) => error.status === 2,
    );

    const thinking = new Client({ name: "consumer", version: "0" });
    const [p, q] = InMemoryTransport.createLinkedPair();
    await Promise.all([
      createSequentialThinkingServer({ logThoughts: false }).connect(p),
      thinking.connect(q),
    ]);
    const thought = await thinking.callTool({
      name: "sequentialthinking",
      arguments: { thought: "t", nextThoughtNeeded: false, thoughtNumber: 2, totalThoughts: 1 },
    });
    assert.deepEqual(thought.structuredContent, {
      thoughtNumber: 2,
      totalThoughts: 2,
      nextThoughtNeeded: false,
      branches: [],
      thoughtHistoryLength: 1,
    });
    await thinking.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
// The postgres server on its embedded default (PGlite in memory with the sample schema), and its bin.
{
  const { createPostgresServer, openPostgresDatabase } = await import("@agentforge/example-servers");
  const database = await openPostgresDatabase();
  try {
    const pgClient = new Client({ name: "consumer", version: "0" });
    const [m, n] = InMemoryTransport.createLinkedPair();
    await Promise.all([createPostgresServer({ database }).connect(m), pgClient.connect(n)]);
    const counted = await pgClient.callTool({
      name: "execute_query",
      arguments: { sql: "SELECT count(*) AS customers FROM customers WHERE country = $1", params: ["FR"] },
    });
    assert.deepEqual(JSON.parse(counted.content[0].text), {
      columns: [{ name: "customers", type: "bigint" }],
      rows: [["4"]],
      rowCount: 1,
      truncated: false,
    });
    const refused = await pgClient.callTool({
      name: "execute_query",
      arguments: { sql: "DELETE FROM orders" },
    });
    assert.equal(refused.isError, true);
    await pgClient.close();
  } finally {
    await database.close();
  }
  assert.match(
    execFileSync("npx", ["--no-install", "agentforge-postgres", "--help"], { encoding: "utf8" }),
    /agentforge-postgres/,
  );
}
console.log("example-servers (import + bins): ok");
