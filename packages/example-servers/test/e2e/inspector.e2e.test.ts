// A client we did not write: the official MCP Inspector CLI (v1) lists each server's tools and calls one.
// Its v1 CLI looks for "../package.json" relative to the working directory, so it runs from test/
// (whose parent, the package folder, has one).
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { binPath, startBin, stopAll } from "./helpers.js";

const require = createRequire(import.meta.url);
const inspectorCli = join(
  dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build/cli.js",
);
const testFolder = fileURLToPath(new URL("..", import.meta.url));
const root = realpathSync(mkdtempSync(join(tmpdir(), "af-inspector-")));
writeFileSync(join(root, "hello.txt"), "hello from the inspector\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => stopAll());

function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [inspectorCli, "--cli", ...args], {
      cwd: testFolder,
      env: { ...process.env, DISABLE_THOUGHT_LOGGING: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`inspector timed out; stderr:\n${stderr}`));
    }, 30_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const servers: [string, string[], string[]][] = [
  ["local-tools", [], ["current_time", "echo", "word_count"]],
  [
    "filesystem",
    [root],
    [
      "directory_tree",
      "get_file_info",
      "list_allowed_directories",
      "list_directory",
      "list_directory_with_sizes",
      "read_file",
      "read_media_file",
      "read_multiple_files",
      "read_text_file",
      "search_files",
    ],
  ],
  ["sequential-thinking", [], ["sequentialthinking"]],
];

describe("the official MCP Inspector CLI", () => {
  it.each(servers)("lists the tools of %s", async (name, args, expected) => {
    const result = await inspector(["node", binPath(name), ...args, "--method", "tools/list"]);
    expect(result.code, result.stderr).toBe(0);
    const listed = (JSON.parse(result.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(listed.sort()).toEqual(expected);
  });

  it("lists the tools of filesystem over Streamable HTTP with a bearer token", async () => {
    const bin = await startBin("filesystem", ["--http", root], {
      env: { MCP_HTTP_TOKEN: "inspector-token" },
    });
    const args = [bin.url, "--transport", "http", "--method", "tools/list"];
    const denied = await inspector(args);
    expect(denied.code).not.toBe(0);
    const result = await inspector([...args, "--header", "Authorization: Bearer inspector-token"]);
    expect(result.code, result.stderr).toBe(0);
    const listed = (JSON.parse(result.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(listed).toContain("directory_tree");
  });

  it("calls a filesystem tool", async () => {
    const result = await inspector([
      "node",
      binPath("filesystem"),
      root,
      "--method",
      "tools/call",
      "--tool-name",
      "read_text_file",
      "--tool-arg",
      "path=hello.txt",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      content: [{ type: "text", text: "hello from the inspector\n" }],
      structuredContent: { content: "hello from the inspector\n" },
    });
  });
});
