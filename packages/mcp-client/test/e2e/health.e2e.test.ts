// Health checks and polling against real stdio servers.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import type { MCPHealthChangedEvent } from "../../src/index.js";
import { cleanup, expectGone, manager, pidOf, tempDir } from "./helpers.js";

afterEach(cleanup);

describe("healthCheck", () => {
  it("reports healthy with latency and tool count, caches it, and fires healthChanged on status changes only", async () => {
    const m = manager([
      stdioTestServer("ok"),
      stdioTestServer("bad", { exitAtStart: 5 }),
      stdioTestServer("off", {}, { enabled: false }),
    ]);
    const events: MCPHealthChangedEvent[] = [];
    m.on("healthChanged", (event) => events.push(event));
    const health = await m.healthCheck("ok");
    expect(health).toMatchObject({ serverName: "ok", status: "healthy", toolCount: 17 });
    expect(health.latencyMs).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(health.checkedAt))).toBe(false);
    expect(m.lastHealth("ok")).toEqual(health);
    await m.healthCheck("ok");
    expect(events.map((event) => `${event.serverName}:${event.health.status}`)).toEqual(["ok:healthy"]);

    const all = await m.healthCheckAll();
    expect(all.map((h) => `${h.serverName}:${h.status}`)).toEqual([
      "ok:healthy",
      "bad:unhealthy",
      "off:disabled",
    ]);
    expect(all[1]).toMatchObject({ errorCode: "SERVER_EXITED", toolCount: null });
    expect(all[1]?.error).toContain("exited with code 5");
  });

  it("a ping that hangs marks the server unhealthy and recycles its connection", async () => {
    const m = manager([stdioTestServer("stuck", { hangPing: true })], { healthTimeoutMs: 300 });
    const pid = await pidOf(m, "stuck");
    const health = await m.healthCheck("stuck");
    expect(health).toMatchObject({ status: "unhealthy", errorCode: "REQUEST_TIMEOUT" });
    expect(health.error).toContain("recycled");
    expectGone([pid]);
    expect(await pidOf(m, "stuck")).not.toBe(pid);
  });
});

describe("startHealthPolling", () => {
  it("retries a server that failed at start-up in the background until it becomes healthy", async () => {
    const marker = join(tempDir(), "ready-now");
    const m = manager([stdioTestServer("late", { failUntilFile: marker })], {
      backoff: { initialDelayMs: 50, maxDelayMs: 200 },
    });
    const seen: string[] = [];
    const healthy = new Promise<void>((resolve) => {
      m.on("healthChanged", (event) => {
        seen.push(event.health.status);
        if (event.health.status === "healthy") resolve();
      });
    });
    const failed = new Promise<void>((resolve) => {
      const unsubscribe = m.on("connectionFailed", () => {
        unsubscribe();
        resolve();
      });
    });
    const stop = m.startHealthPolling(50);
    await failed;
    writeFileSync(marker, "");
    await healthy;
    stop();
    expect(seen[0]).toBe("unhealthy");
    expect(seen.at(-1)).toBe("healthy");
    expect(m.connectionStatus("late").state).toBe("connected");
  });
});
