// What real MCP servers send reaches the user of the demo: a tool's progress (CLI lines, run events over
// SSE), a server's elicitation request (declined when nobody is at a terminal, recorded without values),
// and a server's resources and prompts (`mcp inspect`, REST). Real processes only: the built CLI, the
// test server (progress, elicitation/create), the official everything server, a scripted OpenAI-API model
// server driven through the real @langchain/openai client.

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ModelServer, startModelServer } from "@agentforge/model-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentforge, CLI, cliEnv, track } from "./cli.js";
import { readSse, type Served, startServe } from "./mcp-fixtures.js";
import { progressAndElicitationScript, roster, servedRunsScope } from "./protocol-fixtures.js";

const { base, models } = servedRunsScope("agentforge-protocol-");

function project(name: string): string {
  const root = join(base, "projects", name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "README.md"), `# ${name}\n\nRings the harbour bell.\n`);
  return root;
}

/** The tool results the model was sent after its first turn (OpenAI message format). */
function toolAnswers(model: ModelServer): string[] {
  const body = model.requests[1]?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  return (body?.messages ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));
}

interface AuditLine {
  event: string;
  action?: string;
  server?: string;
  mode?: string;
  reason?: string;
}

function audit(stateDir: string): AuditLine[] {
  return readFileSync(join(stateDir, "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditLine);
}

describe("progress and elicitation in `agentforge docs` (no terminal)", () => {
  it("prints one progress line per call, declines the elicitation and records it without values", async () => {
    const root = project("bell-cli");
    const state = mkdtempSync(join(base, "state-"));
    const model = await startModelServer("openai", progressAndElicitationScript());
    models.push(model);

    const result = await agentforge(
      ["docs", root, "--model", "openai", "--config", roster(base), "--state-dir", state],
      { env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseURL } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Rings the harbour bell.");

    // Progress: not a terminal, so at most one line for the call — numbers only, never the server's text.
    const progressLines = result.stderr.split("\n").filter((line) => line.includes("probe.progress running"));
    expect(progressLines.length, result.stderr).toBe(1);
    expect(progressLines[0]).toMatch(/probe\.progress running [1-4]\/4 \(\d+%\)/);
    expect(result.stderr).not.toMatch(/step \d/);

    // Elicitation: declined at once (the tool got the answer "decline"), said on stderr and in the audit.
    expect(result.stderr).toContain(
      "elicitation_declined: server probe asked for input (form mode); no terminal to ask, declined",
    );
    const elicitation = toolAnswers(model).find((text) => text.includes("elicitation/create"));
    expect(elicitation).toMatch(/"action":\s*"decline"/);
    const declined = audit(state).filter((line) => line.event === "elicitation_declined");
    expect(declined).toEqual([
      expect.objectContaining({ server: "probe", mode: "form", reason: "unattended" }),
    ]);
    // The request's text and field names never reach the audit trail.
    expect(readFileSync(join(state, "audit.jsonl"), "utf8")).not.toMatch(/password/i);
  });
});

/** Quote one argument for `sh -c`. */
const sh = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

describe("progress and elicitation in `agentforge docs` on a terminal (a pseudo-terminal via script(1))", () => {
  it("asks the user, sends only what was typed, shows live progress", async () => {
    const root = project("bell-tty");
    const state = mkdtempSync(join(base, "state-"));
    const model = await startModelServer("openai", progressAndElicitationScript());
    models.push(model);
    const command = [
      process.execPath,
      CLI,
      "docs",
      root,
      "--model",
      "openai",
      "--config",
      roster(base),
      "--state-dir",
      state,
    ]
      .map(sh)
      .join(" ");
    const child = track(
      spawn("script", ["-qec", command, "/dev/null"], {
        env: cliEnv({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseURL }),
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    let screen = "";
    let answeredAt = 0;
    const typed: string[] = [];
    child.stdout.on("data", (chunk) => {
      screen += String(chunk);
      // Answer each question once it is on the screen: yes, then the one field the server asks for. The
      // field's question is looked for after the first answer, not at the screen's end: on a busy machine
      // more output (the echo, a progress redraw) can follow it in the same or a later chunk.
      if (typed.length === 0 && screen.includes("Answer? [y/N]")) {
        typed.push("y");
        answeredAt = screen.length;
        child.stdin.write("y\n");
      } else if (
        typed.length === 1 &&
        screen.includes("password (string; optional: Enter to leave out):", answeredAt)
      ) {
        typed.push("typed-by-user");
        child.stdin.write("typed-by-user\n");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stdin.end();
    expect(code, screen).toBe(0);
    expect(typed).toEqual(["y", "typed-by-user"]);
    expect(screen).toContain('MCP server "probe" asks: Your password, please');
    // Live progress: the line is rewritten in place on a terminal.
    const live = screen.split("\r\u001b[2K").filter((part) => part.includes("probe.progress running"));
    expect(live.length, screen).toBeGreaterThan(0);
    expect(live[0]).toMatch(/^\[\d+\] probe\.progress running [1-4]\/4/);
    // The server got exactly what the user typed.
    const answer = toolAnswers(model).find((text) => text.includes("elicitation/create"));
    expect(answer).toMatch(/"action":\s*"accept"/);
    expect(answer).toContain('"password":"typed-by-user"');
    // The audit trail records the answer's action, never the value.
    const lines = audit(state);
    expect(lines.filter((l) => l.event === "elicitation_answered")).toEqual([
      expect.objectContaining({ server: "probe", mode: "form", action: "accept" }),
    ]);
    expect(readFileSync(join(state, "audit.jsonl"), "utf8")).not.toContain("typed-by-user");
  });
});

describe("agentforge serve: progress as run events; resources and prompts over REST", () => {
  let server: Served;
  let config: string;
  let allowed: string;
  let model: ModelServer;
  const api = (path: string) => `${server.url}/api/v1${path}`;
  const post = (path: string, body?: unknown) =>
    fetch(api(path), {
      method: "POST",
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    config = roster(base);
    allowed = join(base, "projects");
    project("bell-rest");
    model = await startModelServer("openai", progressAndElicitationScript());
    const state = mkdtempSync(join(base, "state-"));
    server = await startServe(
      ["--port", "0", "--no-check", "--config", config, "--state-dir", state, "--allowed-base", allowed],
      { env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseURL }, cwd: base },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it("a run's tool progress reaches its event stream as numbers; its elicitation is declined", async () => {
    const started = await post("/runs", { folder: "bell-rest", model: "openai" });
    expect(started.status, await started.clone().text()).toBe(202);
    const run = (await started.json()) as { id: string };
    const { events } = await readSse(api(`/runs/${run.id}/events`), {
      until: (event) => event.event === "run_finished",
      timeoutMs: 170_000,
    });
    const finished = events.find((e) => e.event === "run_finished");
    expect(finished?.data.status, JSON.stringify(finished?.data)).toBe("finished");
    const progress = events.filter((e) => e.event === "tool_progress");
    expect(progress.length).toBeGreaterThan(0);
    for (const event of progress) {
      expect(Object.keys(event.data).sort()).toEqual(
        ["at", "callId", "identity", "progress", "runId", "total", "type"].sort(),
      );
      expect(event.data).toMatchObject({ runId: run.id, identity: "probe.progress", total: 4 });
      expect(typeof event.data.progress).toBe("number");
    }
    // Increasing values of one call.
    const values = progress.map((e) => e.data.progress as number);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    // A served run has nobody at a terminal: the server's elicitation request was declined, and the
    // run's event stream says so (server and mode only, like every elicitation_declined record).
    expect(toolAnswers(model).find((text) => text.includes("elicitation/create"))).toMatch(
      /"action":\s*"decline"/,
    );
    const declined = events.filter((e) => e.event === "elicitation_declined");
    expect(declined.map((e) => e.data)).toEqual([
      { type: "elicitation_declined", runId: run.id, server: "probe", mode: "form", at: expect.any(String) },
    ]);
    // It came before the run finished, in the order it happened.
    expect(events.findIndex((e) => e.event === "elicitation_declined")).toBeLessThan(
      events.findIndex((e) => e.event === "run_finished"),
    );
  });

  it("GET resources/prompts never start a server; POST connects; then list, page, read and get", async () => {
    // Not connected yet (--no-check): the GETs answer without starting it.
    const idle = await fetch(api("/mcp/servers/everything/resources"));
    expect(idle.status).toBe(200);
    expect(await idle.json()).toMatchObject({
      status: "not_connected",
      resources: [],
      connect: { method: "POST", href: "/api/v1/mcp/servers/everything/health-check" },
    });
    const servers = (await (await fetch(api("/mcp/servers"))).json()) as {
      servers: { name: string; connection: { state: string } }[];
    };
    expect(servers.servers.find((s) => s.name === "everything")?.connection.state).not.toBe("connected");

    // A read is a POST: it connects the server as needed.
    const page1 = (await (await fetch(api("/mcp/servers/everything/resources"))).json()) as {
      status: string;
    };
    expect(page1.status).toBe("not_connected");
    const read = await post("/mcp/servers/everything/resources/read", {
      uri: "demo://resource/static/document/architecture.md",
    });
    expect(read.status, await read.clone().text()).toBe(200);
    const readBody = (await read.json()) as {
      server: string;
      contents: { uri: string; text?: string }[];
      truncated: boolean;
    };
    expect(readBody.server).toBe("everything");
    expect(readBody.contents[0]?.text?.length).toBeGreaterThan(0);
    expect(readBody.truncated).toBe(false);

    // Now connected: the GETs list over that connection, paged with ?cursor=.
    const listed = (await (await fetch(api("/mcp/servers/everything/resources"))).json()) as {
      status: string;
      resources: { uri: string; serverName: string }[];
      nextCursor: string | null;
    };
    expect(listed.status).toBe("ok");
    expect(listed.resources.length).toBeGreaterThan(0);
    const uris = new Set(listed.resources.map((r) => r.uri));
    let cursor = listed.nextCursor;
    for (let pages = 0; cursor !== null && pages < 50; pages++) {
      const next = (await (
        await fetch(api(`/mcp/servers/everything/resources?cursor=${encodeURIComponent(cursor)}`))
      ).json()) as typeof listed;
      expect(next.status).toBe("ok");
      for (const r of next.resources) uris.add(r.uri);
      cursor = next.nextCursor;
    }
    expect(uris.size).toBeGreaterThanOrEqual(listed.resources.length);

    const prompts = (await (await fetch(api("/mcp/servers/everything/prompts"))).json()) as {
      status: string;
      prompts: { name: string; arguments: { name: string; required?: boolean }[] }[];
    };
    expect(prompts.status).toBe("ok");
    const args = prompts.prompts.find((p) => p.name === "args-prompt");
    expect(args?.arguments.map((a) => a.name)).toContain("city");

    const got = await post("/mcp/servers/everything/prompts/get", {
      name: "args-prompt",
      arguments: { city: "Lisbon" },
    });
    expect(got.status, await got.clone().text()).toBe(200);
    const prompt = (await got.json()) as { name: string; messages: { role: string; content: unknown }[] };
    expect(prompt.name).toBe("args-prompt");
    expect(JSON.stringify(prompt.messages)).toContain("Lisbon");
  });

  it("errors have stable codes: no capability, unknown resource, bad bodies, disabled and unknown servers", async () => {
    // local-tools offers no resources or prompts: refused before anything is sent.
    const noResources = await post("/mcp/servers/local-tools/resources/read", { uri: "file:///x" });
    expect(noResources.status).toBe(409);
    expect(((await noResources.json()) as { error: Record<string, unknown> }).error).toMatchObject({
      code: "CAPABILITY_NOT_SUPPORTED",
      serverName: "local-tools",
      capability: "resources",
    });
    const noPrompts = await post("/mcp/servers/local-tools/prompts/get", { name: "x" });
    expect(noPrompts.status).toBe(409);
    expect(((await noPrompts.json()) as { error: { code: string } }).error.code).toBe(
      "CAPABILITY_NOT_SUPPORTED",
    );

    // The server refuses an unknown resource: its JSON-RPC error, with its number.
    const unknown = await post("/mcp/servers/everything/resources/read", { uri: "demo://no/such/thing" });
    expect(unknown.status).toBe(502);
    const unknownError = ((await unknown.json()) as { error: { code: string; rpcCode?: number } }).error;
    expect(unknownError.code).toBe("RPC_ERROR");
    expect(typeof unknownError.rpcCode).toBe("number");

    // Bodies: field paths in the issues.
    const noUri = await post("/mcp/servers/everything/resources/read", {});
    expect(noUri.status).toBe(400);
    expect(await noUri.json()).toMatchObject({
      error: { code: "INVALID_BODY", issues: [{ path: "uri", message: "required" }] },
    });
    const badArgs = await post("/mcp/servers/everything/prompts/get", {
      name: "args-prompt",
      arguments: { city: 12 },
    });
    expect(badArgs.status).toBe(400);
    expect(JSON.stringify(await badArgs.json())).toContain("arguments.city");
    const longCursor = await fetch(api(`/mcp/servers/everything/prompts?cursor=${"c".repeat(5000)}`));
    expect(longCursor.status).toBe(400);

    const disabled = await fetch(api("/mcp/servers/off/resources"));
    expect(disabled.status).toBe(409);
    expect(((await disabled.json()) as { error: { code: string } }).error.code).toBe("SERVER_DISABLED");
    const missing = await post("/mcp/servers/nope/prompts/get", { name: "x" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("SERVER_NOT_FOUND");
  });
});

describe("agentforge mcp inspect: resources, templates and prompts", () => {
  it("lists each kind the server offers, bounded, and says when a kind is not offered", async () => {
    const file = roster(base);
    const state = mkdtempSync(join(base, "state-"));
    const text = await agentforge(["mcp", "inspect", "everything", "--config", file, "--state-dir", state]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("Resources");
    expect(text.stdout).toContain("demo://resource/static/document/");
    expect(text.stdout).toContain("Resource templates");
    expect(text.stdout).toContain("Prompts");
    expect(text.stdout).toMatch(/args-prompt\(city, state\?\)|args-prompt\(city/);

    const json = await agentforge([
      "mcp",
      "inspect",
      "everything",
      "--json",
      "--config",
      file,
      "--state-dir",
      state,
    ]);
    expect(json.code, json.stderr).toBe(0);
    const view = JSON.parse(json.stdout) as {
      catalog: {
        resources: { items: { uri: string }[]; more: boolean };
        resourceTemplates: { items: { uriTemplate: string }[] };
        prompts: { items: { name: string }[] };
      };
    };
    expect(view.catalog.resources.items.length).toBeGreaterThan(0);
    expect(view.catalog.resources.items.length).toBeLessThanOrEqual(20);
    expect(view.catalog.resourceTemplates.items.length).toBeGreaterThan(0);
    expect(view.catalog.prompts.items.map((p) => p.name)).toContain("simple-prompt");

    const plain = await agentforge([
      "mcp",
      "inspect",
      "local-tools",
      "--json",
      "--config",
      file,
      "--state-dir",
      state,
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect((JSON.parse(plain.stdout) as { catalog: unknown }).catalog).toEqual({
      resources: null,
      resourceTemplates: null,
      prompts: null,
    });
  });
});
