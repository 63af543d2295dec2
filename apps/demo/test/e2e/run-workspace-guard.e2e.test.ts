// Per-run confinement on a shared stack: the real filesystem server rooted at the allowed base, and a
// run's executor calling it through runWorkspaceGuard(folder). Paths outside the run's folder — absolute,
// relative with "..", through a symlink, or one of several — are refused before they are sent, as a
// tool error the model can read; paths inside work.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPToolExecutor } from "@agentforge/agent-runtime";
import { NARROW_ROOTS_META as SERVER_NARROW_ROOTS_META } from "@agentforge/example-servers";
import { MCPClientManager } from "@agentforge/mcp-client";
import { loadMCPConfig } from "@agentforge/mcp-config/node";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NARROW_ROOTS_META, runWorkspaceGuard } from "../../src/docs-agent/run-workspace-guard.js";
import { exampleServer } from "./mcp-fixtures.js";

let dir: string;
let base: string;
let folder: string;
let manager: MCPClientManager;
let executor: MCPToolExecutor;
let calls = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentforge-guard-"));
  base = join(dir, "base");
  folder = join(base, "run");
  mkdirSync(join(folder, "docs"), { recursive: true });
  writeFileSync(join(folder, "README.md"), "# inside\n");
  writeFileSync(join(folder, "docs", "a.md"), "a\n");
  writeFileSync(join(base, "secret.txt"), "outside the run\n");
  mkdirSync(join(base, "other"));
  writeFileSync(join(base, "other", "b.md"), "another run's file\n");
  symlinkSync(join(base, "secret.txt"), join(folder, "link.txt"));
  const config = join(dir, "mcp_servers.yaml");
  writeFileSync(
    config,
    `servers:
${exampleServer("filesystem")}
${exampleServer("local-tools")}
permissions:
  documentation: [filesystem.*, local-tools.echo]
`,
  );
  const loaded = await loadMCPConfig(config);
  manager = new MCPClientManager(loaded.servers, {
    env: { ...process.env, AGENTFORGE_WORKSPACE: base },
    logDir: join(dir, "logs"),
  });
  const registry = new MCPToolRegistry();
  for (const server of ["filesystem", "local-tools"])
    registry.replaceServer(server, await manager.listTools(server));
  const guard = runWorkspaceGuard(manager, folder);
  executor = new MCPToolExecutor({
    clientManager: {
      getConfig: (name) => guard.getConfig(name),
      callTool: (...args) => {
        calls++;
        return guard.callTool(...args);
      },
    },
    registry,
    policy: MCPPermissionPolicy.fromConfig(loaded),
  });
}, 120_000);

afterAll(async () => {
  executor?.dispose();
  await manager?.closeAll();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const read = (args: Record<string, unknown>, tool = "filesystem.read_text_file") =>
  executor.execute("documentation", tool, args);

describe("runWorkspaceGuard", () => {
  it("lets paths inside the run's folder through (absolute or relative to the folder)", async () => {
    expect((await read({ path: join(folder, "README.md") })).text).toContain("# inside");
    expect((await read({ path: "docs/a.md" })).text).toContain("a");
    const many = await read(
      { paths: [join(folder, "README.md"), "docs/a.md"] },
      "filesystem.read_multiple_files",
    );
    expect(many.text).toContain("# inside");
  });

  it("refuses paths outside it before they are sent: absolute, '..', a symlink out, one of several", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ path: join(base, "secret.txt") }, "filesystem.read_text_file"],
      [{ path: "../other/b.md" }, "filesystem.read_text_file"],
      [{ path: join(folder, "link.txt") }, "filesystem.read_text_file"],
      [{ path: join(folder, "..") }, "filesystem.list_directory"],
      [{ paths: [join(folder, "README.md"), join(base, "secret.txt")] }, "filesystem.read_multiple_files"],
    ];
    for (const [args, tool] of cases) {
      const error = await read(args, tool).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, JSON.stringify(args)).toMatchObject({
        code: "PATH_OUTSIDE_RUN_FOLDER",
        message: expect.stringContaining(`outside this run's folder ${folder}`),
      });
    }
    // The server itself would have allowed them (its root is the base): the guard is what refused.
    expect(
      (await manager.callTool("filesystem", "read_text_file", { path: join(base, "secret.txt") })).isError,
    ).not.toBe(true);
  });

  it("answers list_allowed_directories with the run's folder; other servers are not affected", async () => {
    const before = calls;
    const allowed = await read({}, "filesystem.list_allowed_directories");
    expect(allowed.text).toContain(folder);
    expect(allowed.text).not.toContain(`${base}\n`);
    expect(calls).toBe(before + 1);
    const echo = await executor.execute("documentation", "local-tools.echo", {
      text: join(base, "secret.txt"),
    });
    expect(echo.text).toContain("secret.txt");
  });
});

describe("runWorkspaceGuard and the server's own check (a folder swapped after the guard looked)", () => {
  it("sends the run's folder as the call's roots, so the server refuses a path that left the folder after the check", async () => {
    expect(NARROW_ROOTS_META).toBe(SERVER_NARROW_ROOTS_META);
    mkdirSync(join(folder, "swap"));
    writeFileSync(join(folder, "swap", "s.md"), "this run's file\n");
    writeFileSync(join(base, "other", "s.md"), "another run's file\n");
    // Between the guard's check and the server's open, the checked folder becomes a link to another run's
    // folder: the race a loop of renames wins, made deterministic.
    let swapped = 0;
    const racing = runWorkspaceGuard(
      {
        getConfig: (name) => manager.getConfig(name),
        callTool: (server, toolName, args, options) => {
          rmSync(join(folder, "swap"), { recursive: true });
          symlinkSync(join(base, "other"), join(folder, "swap"));
          swapped++;
          return manager.callTool(server, toolName, args, options);
        },
      },
      folder,
    );
    try {
      const raced = await racing.callTool("filesystem", "read_text_file", { path: "swap/s.md" });
      expect(swapped).toBe(1);
      expect(raced.isError).toBe(true);
      expect(JSON.stringify(raced.content)).not.toContain("another run's file");
      // Without the roots the same server (rooted at the base) reads it: the server's narrowing refused.
      const unguarded = await manager.callTool("filesystem", "read_text_file", {
        path: join(folder, "swap", "s.md"),
      });
      expect(JSON.stringify(unguarded.content)).toContain("another run's file");
    } finally {
      rmSync(join(folder, "swap"), { recursive: true, force: true });
    }
  });
});

describe("runWorkspaceGuard against huge paths (a model can send any length)", () => {
  it("refuses a path over 4096 characters before any file-system call, as PATH_TOO_LONG", async () => {
    for (const path of [`${folder}/${"a/".repeat(12_000)}x`, "x".repeat(32_000)]) {
      const error = await read({ path }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({
        code: "PATH_TOO_LONG",
        message: expect.stringMatching(/over the limit of 4096/),
      });
      expect((error as Error).message.length).toBeLessThan(400);
    }
  });

  it("resolves the longest allowed path, of many missing parts, inside the folder", async () => {
    const deep = `${folder}/${"d/".repeat(Math.floor((4090 - folder.length) / 2))}`.slice(0, 4096);
    const outcome = await read({ path: deep }).then(
      (result) => result.text,
      (caught: unknown) => (caught as { code?: string }).code,
    );
    // Inside the folder, so the server was asked (and answered that the file does not exist).
    expect(outcome).not.toBe("PATH_OUTSIDE_RUN_FOLDER");
    expect(outcome).not.toBe("PATH_TOO_LONG");
  });
});
