// `agentforge mcp ...` as a user runs it: child processes, against a temp roster (healthy, broken,
// unreachable and disabled servers, a canary secret) and against the shipped roster.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentforge, CLI, type CliResult, killRunning, limited, track } from "./cli.js";
import { CANARY_VARIABLE, type Roster, TEMP_ROSTER_SERVERS, tempRoster } from "./mcp-fixtures.js";

let roster: Roster;
const outputs: string[] = [];

beforeAll(async () => {
  roster = await tempRoster();
});
afterEach(killRunning);
afterAll(() => {
  roster?.cleanup();
});

/** `agentforge mcp <verb> ... --config <temp> --state-dir <temp>`, outputs kept for the canary check. */
async function mcp(
  args: string[],
  options: { json?: boolean; env?: NodeJS.ProcessEnv; config?: string } = {},
): Promise<CliResult> {
  const result = await agentforge(
    [
      "mcp",
      ...args,
      "--config",
      options.config ?? roster.config,
      "--state-dir",
      roster.stateDir,
      ...(options.json === false ? [] : ["--json"]),
    ],
    { env: { ...roster.env, ...options.env }, cwd: roster.dir, timeoutMs: 90_000 },
  );
  outputs.push(result.stdout, result.stderr);
  return result;
}

const parse = <T = Record<string, unknown>>(result: CliResult): T => JSON.parse(result.stdout) as T;

interface Health {
  name: string;
  status: string;
  checkedAt: string;
  latencyMs: number | null;
  toolCount: number | null;
  protocolVersion?: string;
  error: { code: string; message: string; stderrTail: string | null } | null;
}

describe("agentforge mcp (temp roster)", () => {
  it("list: every server with display name, transport, enabled and last known health, without starting any", async () => {
    const result = await mcp(["list"]);
    expect(result.code).toBe(0);
    const view = parse<{ config: string; servers: Record<string, unknown>[] }>(result);
    expect(view.config).toBe(roster.config);
    expect(view.servers.map((s) => s.name)).toEqual(TEMP_ROSTER_SERVERS);
    expect(view.servers[0]).toEqual({
      name: "local-tools",
      displayName: "Local tools",
      description: null,
      transport: "stdio",
      enabled: true,
      toolCount: null,
      health: null,
    });
    expect(view.servers.find((s) => s.name === "remote")).toMatchObject({
      transport: "http",
      displayName: "Remote (unreachable)",
    });
    expect(view.servers.find((s) => s.name === "off")).toMatchObject({ enabled: false });
    // `broken` writes the marker file whenever it is started: list never starts it.
    expect(existsSync(roster.marker)).toBe(false);
    const text = await mcp(["list"], { json: false });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^NAME\s+DISPLAY NAME\s+TRANSPORT\s+ENABLED\s+HEALTH\s+CHECKED\s+TOOLS\s+MCP/,
    );
    expect(text.stdout).toMatch(/remote\s+Remote \(unreachable\)\s+http\s+yes\s+never checked/);
    expect(text.stdout).not.toContain("\x1b[");
  });

  it("health: all servers in parallel, unhealthy ones with the error and the stderr tail (redacted); exit 1", async () => {
    const result = await mcp(["health"]);
    expect(result.code).toBe(1);
    const report = parse<{ servers: Health[]; summary: Record<string, number> }>(result);
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    for (const name of ["local-tools", "filesystem", "sequential-thinking"]) {
      expect(byName[name]).toMatchObject({ status: "healthy", error: null });
      expect(byName[name]?.latencyMs).toBeGreaterThan(0);
    }
    expect(byName["local-tools"]?.toolCount).toBe(3);
    // protocol_version: auto (the default) negotiates the newest revision the first-party servers serve.
    expect(byName["local-tools"]?.protocolVersion).toBe("2026-07-28");
    expect(byName.broken?.protocolVersion).toBeUndefined();
    expect(byName.broken).toMatchObject({ status: "unhealthy", error: { code: "SERVER_EXITED" } });
    expect(byName.broken?.error?.message).toContain("exited with code 3");
    // The message names the command line to run by hand (its -e script says "boom"), never the stderr
    // line itself: that is the separate, redacted stderrTail.
    expect(byName.broken?.error?.message).toContain("Fix: run it by hand");
    expect(byName.broken?.error?.message).not.toContain("boom: token=[REDACTED]");
    expect(byName.broken?.error?.stderrTail).toBe("boom: token=[REDACTED]");
    expect(byName.remote).toMatchObject({
      status: "unhealthy",
      error: { code: "HTTP_UNREACHABLE", stderrTail: null },
    });
    expect(byName.off).toMatchObject({ status: "disabled", latencyMs: null, error: null });
    expect(report.summary).toEqual({ healthy: 3, unhealthy: 2, disabled: 1 });
    expect(existsSync(roster.marker)).toBe(true); // the check did start `broken`

    const text = await mcp(["health"], { json: false });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/local-tools\s+healthy\s+[\d.]+ ms\s+3\s+2026-07-28/);
    expect(text.stdout).toMatch(/broken\s+unhealthy/);
    expect(text.stdout).toContain('SERVER_EXITED: MCP server "broken"');
    expect(text.stdout).toContain("stderr (end):");
    expect(text.stdout).toContain("boom: token=[REDACTED]");
    expect(text.stdout).toContain("3 healthy, 2 unhealthy, 1 disabled");
  });

  it("list shows the last known health recorded by the checks; health <name> checks one server (exit 0)", async () => {
    const before = Date.now();
    const one = await mcp(["health", "local-tools"]);
    expect(one.code).toBe(0);
    const report = parse<{ servers: Health[] }>(one);
    expect(report.servers).toHaveLength(1);
    expect(report.servers[0]).toMatchObject({ name: "local-tools", status: "healthy", toolCount: 3 });
    const list = parse<{ servers: { name: string; toolCount: number | null; health: Health | null }[] }>(
      await mcp(["list"]),
    );
    const local = list.servers.find((s) => s.name === "local-tools");
    expect(local?.health?.status).toBe("healthy");
    expect(Date.parse(local?.health?.checkedAt ?? "")).toBeGreaterThanOrEqual(before - 1000);
    expect(local?.toolCount).toBe(3);
    expect(list.servers.find((s) => s.name === "broken")?.health).toMatchObject({
      status: "unhealthy",
      error: { code: "SERVER_EXITED" },
    });
    expect(list.servers.find((s) => s.name === "off")?.health?.status).toBe("disabled");
  });

  it("inspect: the redacted config (variable names and whether set) and live server info", async () => {
    const result = await mcp(["inspect", "filesystem"]);
    expect(result.code).toBe(0);
    const view = parse<{
      server: Record<string, unknown>;
      config: Record<string, unknown>;
      live: Record<string, unknown> | null;
    }>(result);
    expect(view.server).toMatchObject({ name: "filesystem", enabled: true, health: { status: "healthy" } });
    expect(view.config).toMatchObject({
      name: "filesystem",
      transport: "stdio",
      env: { WORKSPACE_ROOT: "AGENTFORGE_WORKSPACE" },
      variables: [{ name: "AGENTFORGE_WORKSPACE", field: "env.WORKSPACE_ROOT", set: true }],
    });
    expect(view.live).toMatchObject({
      serverInfo: { name: "agentforge-filesystem" },
      capabilities: { tools: expect.any(Object) },
      protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });

    const remote = await mcp(["inspect", "remote"]);
    expect(remote.code).toBe(1);
    const remoteView = parse<{ config: Record<string, unknown>; live: unknown; server: { health: Health } }>(
      remote,
    );
    expect(remoteView.config).toMatchObject({
      auth: { type: "bearer", credentialEnvVar: CANARY_VARIABLE },
      variables: [{ name: CANARY_VARIABLE, field: "auth.credentialEnvVar", set: true }],
    });
    expect(remoteView.live).toBeNull();
    expect(remoteView.server.health.error?.code).toBe("HTTP_UNREACHABLE");

    const text = await mcp(["inspect", "remote"], { json: false });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`${CANARY_VARIABLE} (auth.credentialEnvVar): set`);
    expect(text.stdout).toContain("not connected");
  });

  it("inspect over Streamable HTTP reports the negotiated protocol version", async () => {
    const bin = fileURLToPath(
      new URL("../../node_modules/@agentforge/example-servers/dist/bin/local-tools.js", import.meta.url),
    );
    const server = track(
      spawn(process.execPath, [bin, "--http", "--port", "0"], {
        stdio: ["ignore", "ignore", "pipe"],
      }),
    );
    const exited = new Promise((resolve) => server.once("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = "";
        server.stderr?.on("data", (chunk) => {
          err += chunk;
          const match = /listening on (http:\/\/\S+)/.exec(err);
          if (match?.[1]) resolve(match[1]);
        });
        server.once("exit", (code) => reject(new Error(`local-tools --http exited with ${code}: ${err}`)));
      });
      const config = join(roster.dir, "http.yaml");
      writeFileSync(
        config,
        `servers:\n  - name: local-http\n    enabled: true\n    transport: http\n    url: ${url}\n`,
      );
      const result = await mcp(["inspect", "local-http"], { config });
      expect(result.code).toBe(0);
      const view = parse<{ live: { protocolVersion: string | null; serverInfo: { name: string } } }>(result);
      expect(view.live.serverInfo.name).toBe("agentforge-local-tools");
      expect(view.live.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    } finally {
      server.kill("SIGTERM");
      await exited;
    }
  });

  it("tools: identities, descriptions and the agents the policy lets call each; failures per server (exit 1)", async () => {
    const one = await mcp(["tools", "local-tools"]);
    expect(one.code).toBe(0);
    const view = parse<{ tools: Record<string, unknown>[]; servers: Record<string, unknown>[] }>(one);
    expect(view.tools.map((t) => t.identity)).toEqual([
      "local-tools.current_time",
      "local-tools.echo",
      "local-tools.word_count",
    ]);
    expect(view.tools.find((t) => t.name === "echo")).toMatchObject({
      identity: "local-tools.echo",
      server: "local-tools",
      description: expect.stringContaining("text"),
      inputSchema: { type: "object" },
      agents: ["ops"],
    });
    expect(view.tools.find((t) => t.name === "word_count")?.agents).toEqual([]);
    expect(view.servers).toEqual([{ name: "local-tools", status: "ok", toolCount: 3, error: null }]);

    const all = await mcp(["tools"]);
    expect(all.code).toBe(1);
    const allView = parse<{
      tools: { identity: string; agents: string[] }[];
      servers: { name: string; status: string; error: { code: string } | null }[];
    }>(all);
    expect(allView.servers.map((s) => `${s.name}:${s.status}`)).toEqual([
      "local-tools:ok",
      "filesystem:ok",
      "sequential-thinking:ok",
      "broken:failed",
      "remote:failed",
    ]);
    expect(allView.servers.find((s) => s.name === "broken")?.error?.code).toBe("SERVER_EXITED");
    expect(allView.tools.find((t) => t.identity === "filesystem.read_text_file")?.agents).toEqual([
      "documentation",
    ]);

    const text = await mcp(["tools", "filesystem"], { json: false });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/filesystem \(\d+ tools\)/);
    expect(text.stdout).toMatch(/filesystem\.read_text_file\s+documentation/);
  });

  it("test: connect, list tools, one latency figure; failures and disabled servers exit 1", async () => {
    const ok = await mcp(["test", "sequential-thinking"]);
    expect(ok.code).toBe(0);
    const view = parse<Record<string, unknown>>(ok);
    expect(view).toMatchObject({
      name: "sequential-thinking",
      ok: true,
      toolCount: 1,
      tools: ["sequentialthinking"],
      error: null,
    });
    expect(view.latencyMs).toEqual(expect.any(Number));
    expect(view.latencyMs as number).toBeGreaterThan(0);

    const broken = await mcp(["test", "broken"]);
    expect(broken.code).toBe(1);
    expect(parse(broken)).toMatchObject({
      name: "broken",
      ok: false,
      toolCount: null,
      tools: [],
      error: { code: "SERVER_EXITED", stderrTail: "boom: token=[REDACTED]" },
    });

    const off = await mcp(["test", "off"]);
    expect(off.code).toBe(1);
    expect(parse(off)).toMatchObject({ ok: false, error: { code: "SERVER_DISABLED" } });

    const text = await mcp(["test", "local-tools"], { json: false });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^local-tools: ok — 3 tools in [\d.]+ ms \(connect \+ tools\/list\)/);
  });

  it("refresh: reconnect and rediscover every enabled server; failures exit 1", async () => {
    const result = await mcp(["refresh"]);
    expect(result.code).toBe(1);
    const view = parse<{ servers: Record<string, unknown>[]; toolCount: number; durationMs: number }>(result);
    // With each error's code, so a failure says why a server did not come up.
    const codeOf = (s: Record<string, unknown>) => (s.error as { code?: string } | null)?.code ?? null;
    expect(view.servers.map((s) => `${s.name}:${s.status}:${codeOf(s)}`)).toEqual([
      "local-tools:ok:null",
      "filesystem:ok:null",
      "sequential-thinking:ok:null",
      "broken:failed:SERVER_EXITED",
      "remote:failed:HTTP_UNREACHABLE",
      "off:disabled:null",
    ]);
    expect(view.servers[0]).toMatchObject({ toolCount: 3, error: null, durationMs: expect.any(Number) });
    expect(view.toolCount).toBe(14);
    const text = await mcp(["refresh"], { json: false });
    expect(text.stdout).toContain("14 tools rediscovered in");
  });

  // Many CLI start-ups: 0.7-0.9 s each on a quiet machine, 5-6 s each at a load of 16 on 2 cores.
  it("usage and config errors exit 2 with a clear message (and a JSON error with --json)", {
    timeout: 240_000,
  }, async () => {
    const bad = join(roster.dir, "bad.yaml");
    writeFileSync(bad, "servers:\n  - name: Bad Name\n    transport: stdio\n");
    // Thirteen independent CLI start-ups, two at a time (the test grows with the slowest, not their sum).
    const [
      unknown,
      testNope,
      toolsNope,
      healthNope,
      noVerb,
      badVerb,
      missing,
      extra,
      bogus,
      noFile,
      invalid,
      help,
      top,
      docsHelp,
      resumeHelp,
      serveHelp,
    ] = await limited([
      () => mcp(["inspect", "nope"]),
      () => mcp(["test", "nope"], { json: false }),
      () => mcp(["tools", "nope"], { json: false }),
      () => mcp(["health", "nope"], { json: false }),
      () => mcp([], { json: false }),
      () => mcp(["frobnicate"]),
      () => mcp(["test"], { json: false }),
      () => mcp(["list", "extra"], { json: false }),
      () => mcp(["list", "--bogus"], { json: false }),
      () => mcp(["list"], { config: join(roster.dir, "missing.yaml") }),
      () => mcp(["health"], { config: bad, json: false }),
      () => agentforge(["mcp", "--help"]),
      () => agentforge(["--help"]),
      () => agentforge(["docs", "--help"]),
      () => agentforge(["resume", "-h"]),
      () => agentforge(["serve", "--help"]),
    ]);
    const code = (name: string, result: CliResult | undefined) =>
      `${name}: ${result?.code} ${result?.code === 2 ? "" : (result?.stderr ?? "")}`;
    expect(code("inspect nope", unknown)).toBe("inspect nope: 2 ");
    expect(unknown?.stderr).toContain(
      'no MCP server named "nope" in the config; known servers: local-tools, filesystem, sequential-thinking, broken, remote, off',
    );
    expect(parse(unknown as CliResult)).toEqual({
      error: {
        code: "SERVER_NOT_FOUND",
        message: expect.stringContaining('"nope"'),
        known: ["local-tools", "filesystem", "sequential-thinking", "broken", "remote", "off"],
      },
    });
    expect(code("test nope", testNope)).toBe("test nope: 2 ");
    expect(code("tools nope", toolsNope)).toBe("tools nope: 2 ");
    expect(code("health nope", healthNope)).toBe("health nope: 2 ");

    expect(code("no verb", noVerb)).toBe("no verb: 2 ");
    expect(noVerb?.stderr).toContain("mcp expects a verb: list, inspect, tools, test, health, refresh");
    expect(code("frobnicate", badVerb)).toBe("frobnicate: 2 ");
    expect(parse(badVerb as CliResult)).toMatchObject({ error: { code: "USAGE" } });
    expect(code("test", missing)).toBe("test: 2 ");
    expect(missing?.stderr).toContain("usage: agentforge mcp test <name>");
    expect(code("list extra", extra)).toBe("list extra: 2 ");
    expect(code("list --bogus", bogus)).toBe("list --bogus: 2 ");

    expect(code("missing config", noFile)).toBe("missing config: 2 ");
    expect(parse(noFile as CliResult)).toMatchObject({ error: { code: "CONFIG_NOT_FOUND" } });
    expect(code("invalid config", invalid)).toBe("invalid config: 2 ");
    expect(invalid?.stderr).toContain("servers[0].name");

    expect(help?.code).toBe(0);
    expect(help?.stdout).toContain("Usage: agentforge mcp <verb> [options]");
    expect(top?.stdout).toContain("mcp <verb>");
    expect(top?.stdout).toContain("serve");
    // Every command answers --help with its own usage (exit 0), before checking any other argument.
    for (const [name, result, usage] of [
      ["docs --help", docsHelp, "agentforge docs <folder>"],
      ["resume -h", resumeHelp, "agentforge resume <run-id>"],
      ["serve --help", serveHelp, "Usage: agentforge serve"],
    ] as const) {
      expect(code(name, result)).toBe(`${name}: 0 ${result?.stderr ?? ""}`);
      expect(result?.stdout).toContain(usage);
    }
  });

  it("colours only on a TTY and never with NO_COLOR", async () => {
    // `script` gives the CLI a pseudo-terminal as stdout.
    const onTty = (env: NodeJS.ProcessEnv) =>
      new Promise<string>((resolve, reject) => {
        const command = [
          process.execPath,
          CLI,
          "mcp",
          "list",
          "--config",
          roster.config,
          "--state-dir",
          roster.stateDir,
        ]
          .map((arg) => `'${arg.replace(/'/g, "'\\''")}'`)
          .join(" ");
        const child = track(
          spawn("script", ["-qec", command, "/dev/null"], {
            env: { ...process.env, ...roster.env, ...env },
            stdio: ["ignore", "pipe", "pipe"],
          }),
        );
        let out = "";
        child.stdout.on("data", (chunk) => {
          out += chunk;
        });
        const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
        child.once("error", reject);
        child.once("close", () => {
          clearTimeout(timer);
          resolve(out);
        });
      });
    const { NO_COLOR: _unset, ...withoutNoColor } = process.env;
    const colored = await onTty({ ...withoutNoColor, NO_COLOR: "" });
    expect(colored).toContain("local-tools");
    expect(colored).toContain("\x1b[1mNAME");
    expect(colored).toContain("\x1b[32mhealthy");
    const plain = await onTty({ NO_COLOR: "1" });
    expect(plain).toContain("local-tools");
    expect(plain).not.toContain("\x1b[");
  });
});

describe("agentforge mcp (the shipped roster)", () => {
  const shipped = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const result = await agentforge(["mcp", ...args, "--json", "--state-dir", roster.stateDir], {
      cwd: roster.base,
      env: { GITHUB_TOKEN: roster.canary, ...env },
      timeoutMs: 180_000,
    });
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  it("list: the eight shipped servers, without connecting", async () => {
    const result = await shipped(["list"]);
    expect(result.code).toBe(0);
    const view = parse<{ config: string; servers: { name: string; transport: string; enabled: boolean }[] }>(
      result,
    );
    expect(view.config).toMatch(/apps\/demo\/config\/mcp_servers\.yaml$/);
    expect(view.servers.map((s) => `${s.name}:${s.transport}`)).toEqual([
      "local-tools:stdio",
      "filesystem:stdio",
      "sequential-thinking:stdio",
      "postgres:stdio",
      "github:http",
      "context7:http",
      "exa:http",
      "playwright:stdio",
    ]);
  });

  it("health: the local servers are healthy, the remote ones unreachable (exit 1)", {
    timeout: 200_000,
  }, async () => {
    const result = await shipped(["health"]);
    expect(result.code).toBe(1);
    const report = parse<{ servers: Health[] }>(result);
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    for (const name of ["local-tools", "filesystem", "sequential-thinking", "postgres"]) {
      expect(`${name}: ${byName[name]?.status} ${byName[name]?.error?.message ?? ""}`).toBe(
        `${name}: healthy `,
      );
    }
    expect(byName.postgres?.toolCount).toBe(4);
    for (const name of ["github", "context7", "exa"]) {
      expect(byName[name]?.status).toBe("unhealthy");
      expect(byName[name]?.error?.code).toMatch(/^HTTP_(DNS|UNREACHABLE|TLS)$/);
    }
    // playwright starts through npx: healthy when the package is reachable; either way it is reported.
    expect(["healthy", "unhealthy"]).toContain(byName.playwright?.status);
    if (byName.playwright?.status === "unhealthy")
      expect(byName.playwright.error?.code).toEqual(expect.any(String));
  });

  it("inspect github: the credential variable is named and set, its value never shown", async () => {
    const result = await shipped(["inspect", "github"]);
    expect(result.code).toBe(1);
    const view = parse<{ config: Record<string, unknown> }>(result);
    expect(view.config).toMatchObject({
      url: "https://api.githubcopilot.com/mcp/",
      auth: { type: "bearer", credentialEnvVar: "GITHUB_TOKEN" },
      variables: [{ name: "GITHUB_TOKEN", field: "auth.credentialEnvVar", set: true }],
    });
    expect(result.stdout).not.toContain(roster.canary);
  });

  it("tools filesystem: the Documentation agent may call every filesystem tool", async () => {
    const result = await shipped(["tools", "filesystem"]);
    expect(result.code).toBe(0);
    const view = parse<{ tools: { identity: string; agents: string[] }[] }>(result);
    expect(view.tools.length).toBeGreaterThan(5);
    for (const tool of view.tools) expect(tool.agents).toEqual(["documentation"]);
  });
});

describe("secrets", () => {
  it("never prints the canary secret, and keeps it out of the health records", () => {
    expect(outputs.length).toBeGreaterThan(40);
    for (const output of outputs) expect(output).not.toContain(roster.canary);
    const records = readFileSync(join(roster.stateDir, "mcp-health.json"), "utf8");
    expect(records).toContain("[REDACTED]");
    expect(records).not.toContain(roster.canary);
  });
});
