import type { Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { dialectsOf, interfaceOf, referenceTools, SCHEMA_DIALECT } from "./filesystem-fixtures.js";
import {
  connectHttp,
  connectStdio,
  type Era,
  type RunningBin,
  runBin,
  startBin,
  stopAll,
} from "./helpers.js";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stopAll();
});
const keep = (client: Client) => {
  clients.push(client);
  return client;
};
const think = (client: Client, thoughtNumber: number, extra: Record<string, unknown> = {}) =>
  client.callTool({
    name: "sequentialthinking",
    arguments: {
      thought: `step ${thoughtNumber}`,
      nextThoughtNeeded: true,
      thoughtNumber,
      totalThoughts: 2,
      ...extra,
    },
  });

/** All of a bin's stderr, after it exited. */
async function stderrAfterExit(bin: RunningBin): Promise<string> {
  const stream = bin.child.stderr;
  const ended = stream && !stream.readableEnded ? new Promise((r) => stream.once("end", r)) : undefined;
  await bin.stop();
  await ended;
  return bin.stderr();
}

async function exercise(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map(interfaceOf)).toEqual(referenceTools("sequential-thinking.json").map(interfaceOf));
  expect(new Set(dialectsOf(tools))).toEqual(new Set([SCHEMA_DIALECT]));
  expect(tools[0]?.description).toBeTruthy();
  const first = await think(client, 1);
  expect(first.structuredContent).toEqual({
    thoughtNumber: 1,
    totalThoughts: 2,
    nextThoughtNeeded: true,
    branches: [],
    thoughtHistoryLength: 1,
  });
  expect(JSON.parse((first.content as { text: string }[])[0]?.text ?? "")).toEqual(first.structuredContent);
  const beyond = await think(client, 4, { nextThoughtNeeded: false, branchFromThought: 1, branchId: "b1" });
  expect(beyond.structuredContent).toEqual({
    thoughtNumber: 4,
    totalThoughts: 4,
    nextThoughtNeeded: false,
    branches: ["b1"],
    thoughtHistoryLength: 2,
  });
}

describe("agentforge-sequential-thinking", () => {
  it.each<Era>(["auto", "legacy"])(
    "serves the official tool over stdio, with the reference schema; the connection keeps the history (client era: %s)",
    async (era) => {
      await exercise(
        keep(await connectStdio("sequential-thinking", [], { DISABLE_THOUGHT_LOGGING: "true" }, era)),
      );
    },
  );

  it("over HTTP, each 2025-era session keeps its own history", async () => {
    const bin = await startBin("sequential-thinking", ["--http"], {
      env: { DISABLE_THOUGHT_LOGGING: "true" },
    });
    const a = keep(await connectHttp(bin.url, undefined, "legacy"));
    const b = keep(await connectHttp(bin.url, undefined, "legacy"));
    expect(a.getProtocolEra()).toBe("legacy");
    await exercise(a);
    await think(a, 3, { branchFromThought: 2, branchId: "a-only" });
    const fromB = await think(b, 1);
    expect(fromB.structuredContent).toMatchObject({ thoughtHistoryLength: 1, branches: [] });
    const againA = await think(a, 5);
    expect(againA.structuredContent).toMatchObject({ thoughtHistoryLength: 4, branches: ["b1", "a-only"] });
  });

  it("over HTTP, a 2026-07-28 client is served statelessly: no history outlives a request", async () => {
    const bin = await startBin("sequential-thinking", ["--http"], {
      env: { DISABLE_THOUGHT_LOGGING: "true" },
    });
    const client = keep(await connectHttp(bin.url, undefined, "2026-07-28"));
    expect(client.getProtocolEra()).toBe("modern");
    const first = await think(client, 1, { branchFromThought: 1, branchId: "b1" });
    expect(first.structuredContent).toMatchObject({ thoughtHistoryLength: 1, branches: ["b1"] });
    const second = await think(client, 2);
    expect(second.structuredContent).toEqual({
      thoughtNumber: 2,
      totalThoughts: 2,
      nextThoughtNeeded: true,
      branches: [],
      thoughtHistoryLength: 1,
    });
  });

  it("requires the bearer token when MCP_HTTP_TOKEN is set", async () => {
    const bin = await startBin("sequential-thinking", ["--http"], {
      env: { MCP_HTTP_TOKEN: "think-token", DISABLE_THOUGHT_LOGGING: "true" },
    });
    for (const era of ["auto", "legacy", "2026-07-28"] as const) {
      await expect(connectHttp(bin.url, undefined, era)).rejects.toThrow(/401|Unauthorized/);
      await expect(connectHttp(bin.url, "wrong", era)).rejects.toThrow(/401|Unauthorized/);
    }
    await exercise(keep(await connectHttp(bin.url, "think-token", "legacy")));
    const modern = keep(await connectHttp(bin.url, "think-token", "2026-07-28"));
    expect((await think(modern, 1)).isError).toBeFalsy();
  });

  it("logs thoughts on stderr unless DISABLE_THOUGHT_LOGGING=true", async () => {
    const loud = await startBin("sequential-thinking", ["--http"], { env: { DISABLE_THOUGHT_LOGGING: "" } });
    const loudClient = await connectHttp(loud.url);
    await think(loudClient, 1);
    await loudClient.close();
    expect(await stderrAfterExit(loud)).toMatch(/│ 💭 Thought 1\/2 │\n├─+┤\n│ step 1 +│/);

    const quiet = await startBin("sequential-thinking", ["--http"], {
      env: { DISABLE_THOUGHT_LOGGING: "true" },
    });
    const quietClient = await connectHttp(quiet.url);
    await think(quietClient, 1);
    await quietClient.close();
    const stderr = await stderrAfterExit(quiet);
    expect(stderr).toContain("listening on");
    expect(stderr).not.toContain("Thought");
  });

  it("--help, --version, bad flags, positionals", async () => {
    const help = await runBin("sequential-thinking", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("DISABLE_THOUGHT_LOGGING");
    expect((await runBin("sequential-thinking", ["-v"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const extra = await runBin("sequential-thinking", ["extra"]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("Unexpected argument 'extra'");
  });
});
