// Stateless HTTP behind a load balancer with no session affinity: two server processes behind a small
// round-robin proxy on loopback that sends each HTTP request to the next server. A 2026-07-28 client's
// calls land on both, each server logs the thoughts it served (sequential-thinking's stderr log), and
// every call succeeds. A 2025-era client, whose session lives in one process, cannot work through it.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type RunningBin, startBin, stopAll } from "./helpers.js";

interface Balancer {
  url: string;
  /** Requests forwarded to each backend, in the order the backends were given. */
  forwarded: number[];
  setBackends(urls: string[]): void;
  close(): Promise<void>;
}

/**
 * A round-robin reverse proxy: each incoming request goes to the next backend on a fresh connection
 * (no keep-alive towards the backends, so nothing pins a client to one), request and response bodies
 * streamed through (SSE included). Headers pass unchanged, Host included: the backends are told to
 * accept the proxy's address (MCP_ALLOWED_HOSTS), as behind any real proxy.
 */
async function startBalancer(): Promise<Balancer> {
  let backends: URL[] = [];
  const forwarded: number[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const index = next++ % backends.length;
    const target = backends[index] as URL;
    forwarded[index] = (forwarded[index] ?? 0) + 1;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: ${error.message}`);
    });
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    forwarded,
    setBackends(urls) {
      backends = urls.map((url) => new URL(url));
      forwarded.length = 0;
      forwarded.push(...urls.map(() => 0));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let balancer: Balancer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await balancer?.close();
  balancer = undefined;
  await stopAll();
});

/** Two sequential-thinking servers (thought logging on) behind a fresh balancer. */
async function twoServersBehindABalancer(): Promise<{ balancer: Balancer; servers: RunningBin[] }> {
  const lb = await startBalancer();
  balancer = lb;
  const env = { DISABLE_THOUGHT_LOGGING: "", MCP_ALLOWED_HOSTS: new URL(lb.url).host };
  const servers = await Promise.all([
    startBin("sequential-thinking", ["--http"], { env }),
    startBin("sequential-thinking", ["--http"], { env }),
  ]);
  lb.setBackends(servers.map((server) => server.url));
  return { balancer: lb, servers };
}

describe("behind a load balancer without session affinity", () => {
  it("a 2026-07-28 client's calls are served by both processes, and all succeed", async () => {
    const { balancer: lb, servers } = await twoServersBehindABalancer();
    const client = new Client(
      { name: "e2e-balanced", version: "0.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(lb.url)));
    expect(client.getProtocolEra()).toBe("modern");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["sequentialthinking"]);

    const thoughts = Array.from({ length: 6 }, (_, i) => `balanced thought ${i + 1}`);
    for (const [i, thought] of thoughts.entries()) {
      const result = await client.callTool({
        name: "sequentialthinking",
        arguments: { thought, nextThoughtNeeded: true, thoughtNumber: i + 1, totalThoughts: 6 },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ thoughtNumber: i + 1, totalThoughts: 6 });
    }

    // Each thought was logged by exactly one of the two processes, and each process logged some.
    await vi.waitFor(
      () => {
        const logged = servers.map((server) => thoughts.filter((t) => server.stderr().includes(`│ ${t} `)));
        expect(logged.flat().sort()).toEqual([...thoughts].sort());
        for (const mine of logged) expect(mine.length).toBeGreaterThan(0);
      },
      { timeout: 30_000, interval: 50 },
    );
    // Round robin: the probe, tools/list and six calls alternated between the two.
    expect(lb.forwarded.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(8);
    for (const count of lb.forwarded) expect(count).toBeGreaterThanOrEqual(4);
  });

  it("a 2025-era client cannot work through it: its session lives in one process", async () => {
    const { balancer: lb } = await twoServersBehindABalancer();
    const client = new Client(
      { name: "e2e-sessionful", version: "0.0.0" },
      { versionNegotiation: { mode: "legacy" } },
    );
    clients.push(client);
    // initialize lands on one server, the initialized notification on the other (unknown session: 404).
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(lb.url)))).rejects.toThrow(
      /404|Session not found/,
    );
  });
});
