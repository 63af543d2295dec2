// Health that stays current: `agentforge serve --health-interval 0.5` polls every server (the manager's
// health polling), records each result, and the /mcp page — in a real browser, never reloaded — shows
// a server turning unhealthy when its HTTP server goes away, with a newer check time.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningHttpTestServer, startHttpTestServer } from "@agentforge/test-servers";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./browser-fixtures.js";
import { exampleServer, type Served, startServe } from "./mcp-fixtures.js";
import { jsonClient } from "./service-fixtures.js";

const POLL = { timeout: 150_000, interval: 250 };

let dir: string;
let remote: RunningHttpTestServer | undefined;
let served: Served | undefined;
let context: BrowserContext | undefined;
let page: Page;
const call = jsonClient(() => (served as Served).url);

interface HealthEntry {
  name: string;
  health: { status: string; checkedAt: string } | null;
}
const healthOf = async (name: string) =>
  ((await call("GET", "/api/v1/mcp/health")).json.servers as HealthEntry[]).find((s) => s.name === name)
    ?.health ?? null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentforge-health-"));
  mkdirSync(join(dir, "base"));
  remote = await startHttpTestServer({ serverName: "remote-test" });
  const config = join(dir, "mcp_servers.yaml");
  writeFileSync(
    config,
    `servers:
${exampleServer("local-tools", { description: "Time, echo and word count" })}
  - name: remote
    description: An HTTP server that goes away
    enabled: true
    transport: http
    url: ${remote.url}
    connection_timeout: 5
permissions: {}
`,
  );
  served = await startServe(
    [
      "--port",
      "0",
      "--config",
      config,
      "--state-dir",
      join(dir, "state"),
      "--allowed-base",
      join(dir, "base"),
      "--health-interval",
      "0.5",
    ],
    { cwd: dir },
  );
  context = await launchBrowser(dir);
  page = context.pages()[0] ?? (await context.newPage());
}, 150_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await served?.stop();
  await remote?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("health polling", () => {
  it("records a new check of every server on each beat, without any request asking for one", async () => {
    await expect.poll(async () => (await healthOf("local-tools"))?.status, POLL).toBe("healthy");
    const first = (await healthOf("local-tools"))?.checkedAt as string;
    await expect.poll(async () => (await healthOf("local-tools"))?.checkedAt, POLL).not.toBe(first);
    expect((await call("GET", "/api/v1/health")).json).toMatchObject({ healthIntervalMs: 500 });
  });

  it("the /mcp page shows a server turning unhealthy, with its newer check time, without a reload", async () => {
    await page.goto(`${(served as Served).url}/mcp`);
    const card = page.locator('li.card[data-server="remote"]');
    const badge = card.locator('[data-field="status"]');
    await expect.poll(() => badge.textContent(), POLL).toBe("healthy");
    await expect
      .poll(() => card.locator('[data-field="description"]').textContent(), POLL)
      .toBe("An HTTP server that goes away");
    const checkedBefore = await card.locator('time[data-field="checked"]').getAttribute("datetime");
    let navigations = 0;
    page.on("framenavigated", () => navigations++);

    await remote?.stop();
    await expect.poll(() => badge.textContent(), POLL).toBe("unhealthy");
    const checkedAfter = await card.locator('time[data-field="checked"]').getAttribute("datetime");
    expect(checkedAfter && checkedBefore && checkedAfter > checkedBefore).toBe(true);
    expect(navigations).toBe(0);
  });
});
