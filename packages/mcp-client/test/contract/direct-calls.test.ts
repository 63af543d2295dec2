/**
 * Contract tests of the direct tools/call path (internal/direct-calls.ts) against the REAL SDK: it reads
 * two private caches of the SDK client, and it must fail exactly as the SDK's `Client.callTool` fails,
 * since the manager maps both with the same classify-error.ts. Every case runs the same call through the
 * SDK and through the direct path on one connection and compares what comes back.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { DirectToolCalls } from "../../src/internal/direct-calls.js";
import { linked } from "./loopback.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server whose tools cover each way a call ends; it records the ids it was asked and cancelled. */
function server() {
  const seen = { requestIds: [] as (string | number)[], cancelled: [] as string[] };
  const s = new Server({ name: "direct-contract", version: "1.0.0" }, { capabilities: { tools: {} } });
  const typed = { type: "object", properties: { n: { type: "number" } }, required: ["n"] } as const;
  s.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: "ok", inputSchema: { type: "object" } },
      { name: "typed_ok", inputSchema: { type: "object" }, outputSchema: typed },
      { name: "typed_bad", inputSchema: { type: "object" }, outputSchema: typed },
      { name: "typed_missing", inputSchema: { type: "object" }, outputSchema: typed },
      { name: "typed_error", inputSchema: { type: "object" }, outputSchema: typed },
      { name: "fails", inputSchema: { type: "object" } },
      { name: "hang", inputSchema: { type: "object" } },
    ],
  }));
  s.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    seen.requestIds.push(extra.requestId);
    const name = request.params.name;
    if (name === "ok")
      return { content: [{ type: "text", text: `args ${JSON.stringify(request.params.arguments)}` }] };
    if (name === "typed_ok") return { content: [], structuredContent: { n: 1 } };
    if (name === "typed_bad") return { content: [], structuredContent: { n: "one" } };
    if (name === "typed_missing") return { content: [{ type: "text", text: "no structure" }] };
    if (name === "typed_error") return { content: [{ type: "text", text: "failed" }], isError: true };
    if (name === "fails") throw new McpError(ErrorCode.InvalidParams, "the server refuses", { why: "test" });
    await new Promise<void>((resolve) =>
      extra.signal.addEventListener("abort", () => {
        seen.cancelled.push(name);
        resolve();
      }),
    );
    return { content: [] };
  });
  return { server: s, seen };
}

async function connected() {
  const { server: s, seen } = server();
  const pair = await linked(s);
  cleanups.push(pair.close);
  await pair.client.listTools(); // fills the SDK's output-schema cache, as ToolCache does
  const transport = pair.client.transport;
  if (!transport) throw new Error("not connected");
  const direct = DirectToolCalls.attach(pair.client, transport);
  if (!direct) throw new Error("DirectToolCalls.attach refused the real SDK client");
  return { ...pair, direct, seen };
}

/** How a promise ended, comparable across the two paths. */
async function outcome(promise: Promise<unknown>) {
  try {
    return { ok: await promise };
  } catch (error) {
    const e = error as McpError;
    return { error: { class: e.constructor.name, code: e.code, message: e.message, data: e.data } };
  }
}

async function until(check: () => boolean) {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("the direct tools/call path against the SDK's Client.callTool", () => {
  it("attaches to a real SDK client (the private caches it reads still exist)", async () => {
    const { direct } = await connected();
    expect(direct.takes("ok")).toBe(true);
  });

  it("results and every failure the SDK reports come back the same", async () => {
    const { client, direct } = await connected();
    for (const name of ["ok", "typed_ok", "typed_bad", "typed_missing", "typed_error", "fails"]) {
      const params = { name, arguments: { a: 1 } };
      const viaSdk = await outcome(client.callTool(params));
      const viaDirect = await outcome(direct.call(params, 5000, undefined));
      expect(viaDirect, name).toEqual(viaSdk);
    }
  });

  it("a timeout: the same McpError, and the server is sent notifications/cancelled", async () => {
    const { client, direct, seen } = await connected();
    const viaSdk = await outcome(client.callTool({ name: "hang" }, undefined, { timeout: 30 }));
    const viaDirect = await outcome(direct.call({ name: "hang" }, 30, undefined));
    expect(viaDirect).toEqual(viaSdk);
    expect(viaDirect.error).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 30 } });
    await until(() => seen.cancelled.length === 2);
  });

  it("an abort: the same McpError, the cancellation sent, the signal's listener removed", async () => {
    const { client, direct, seen } = await connected();
    const sdkAbort = new AbortController();
    const directAbort = new AbortController();
    const viaSdkCall = outcome(client.callTool({ name: "hang" }, undefined, { signal: sdkAbort.signal }));
    const viaDirectCall = outcome(direct.call({ name: "hang" }, 5000, directAbort.signal));
    await until(() => seen.requestIds.length === 2);
    sdkAbort.abort("stop");
    directAbort.abort("stop");
    expect(await viaDirectCall).toEqual(await viaSdkCall);
    await until(() => seen.cancelled.length === 2);
    // A signal that was never aborted keeps no listener of a call that ended.
    const kept = new AbortController();
    let added = 0;
    let removed = 0;
    const add = kept.signal.addEventListener.bind(kept.signal);
    const remove = kept.signal.removeEventListener.bind(kept.signal);
    kept.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof add;
    kept.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    }) as typeof remove;
    await direct.call({ name: "ok" }, 5000, kept.signal);
    expect({ added, removed }).toEqual({ added: 1, removed: 1 });
  });

  it("a connection that closes under calls fails them all with ConnectionClosed, as the SDK does", async () => {
    const { client, direct, seen } = await connected();
    const viaSdk = outcome(client.callTool({ name: "hang" }));
    const viaDirect = [
      outcome(direct.call({ name: "hang" }, 5000, undefined)),
      outcome(direct.call({ name: "hang" }, 5000, undefined)),
    ];
    await until(() => seen.requestIds.length === 3);
    await client.transport?.close();
    const sdk = await viaSdk;
    expect(sdk.error?.code).toBe(ErrorCode.ConnectionClosed);
    for (const result of await Promise.all(viaDirect)) expect(result).toEqual(sdk);
    // After the close, a new call fails at once instead of waiting for its timeout.
    expect(direct.takes("ok")).toBe(false);
    expect(await outcome(direct.call({ name: "ok" }, 60_000, undefined))).toEqual(sdk);
  });

  it("direct and SDK requests share one connection: string ids never meet the SDK's numeric ids", async () => {
    const { client, direct, seen } = await connected();
    const calls = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? direct.call({ name: "ok", arguments: { i } }, 5000, undefined)
        : client.callTool({ name: "ok", arguments: { i } }),
    );
    const pings = Array.from({ length: 5 }, () => client.ping());
    const results = (await Promise.all(calls)) as { content: { text: string }[] }[];
    await Promise.all(pings);
    results.forEach((result, i) => {
      expect(result.content[0]?.text).toBe(`args {"i":${i}}`);
    });
    const ids = seen.requestIds.slice(-20);
    expect(ids.filter((id) => typeof id === "string")).toHaveLength(10);
    expect(ids.filter((id) => typeof id === "number")).toHaveLength(10);
    expect(new Set(ids).size).toBe(20);
  });
});
