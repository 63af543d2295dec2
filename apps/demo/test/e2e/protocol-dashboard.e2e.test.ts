// The /mcp page shows a running tool's progress: Debian's Chromium (playwright-core, headless) on
// `agentforge serve`, a docs run whose model (a scripted OpenAI-API server, through the real client) calls
// the test server's `progress` tool. A call's reports update one line of the run's log.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelServer, startModelServer } from "@agentforge/model-servers";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./browser-fixtures.js";
import { readSse, type Served, startServe } from "./mcp-fixtures.js";
import { progressAndElicitationScript, roster } from "./protocol-fixtures.js";

let dir: string;
let served: Served | undefined;
let model: ModelServer | undefined;
let context: BrowserContext | undefined;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentforge-protocol-page-"));
  const base = join(dir, "base");
  mkdirSync(join(base, "bell"), { recursive: true });
  writeFileSync(join(base, "bell", "README.md"), "# bell\n\nRings the harbour bell.\n");
  model = await startModelServer("openai", progressAndElicitationScript());
  served = await startServe(
    [
      "--port",
      "0",
      "--no-check",
      "--config",
      roster(dir),
      "--state-dir",
      join(dir, "state"),
      "--allowed-base",
      base,
    ],
    { cwd: dir, env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseURL } },
  );
  context = await launchBrowser(dir);
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await served?.stop();
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the /mcp page and tool progress", () => {
  it("shows each call's latest progress on one line of the run's log", { timeout: 170_000 }, async () => {
    const response = await page.goto(`${served?.url}/mcp`);
    expect(response?.status()).toBe(200);
    await page.getByLabel("Folder").fill("bell");
    await page.getByRole("button", { name: "Start docs run" }).click();
    const log = page.locator("#run-log");
    await log.locator('li[data-event="run_finished"]').waitFor({ timeout: 150_000 });

    const lines = log.locator('li[data-event="tool_progress"]');
    expect(await lines.count()).toBe(1);
    expect(await lines.first().textContent()).toMatch(/tool_progress — … probe\.progress [1-4]\/4 \(\d+%\)/);

    // The stream carried every report; the page kept one line holding the last one.
    await expect
      .poll(async () => (await page.locator("#run-status").textContent()) ?? "", { timeout: 60_000 })
      .toMatch(/^Run [0-9a-f-]{36}: finished/);
    const runId = /Run ([0-9a-f-]{36})/.exec((await page.locator("#run-status").textContent()) ?? "")?.[1];
    expect(runId).toBeDefined();
    const { events } = await readSse(`${served?.url}/api/v1/runs/${runId}/events`, {
      until: (event) => event.event === "run_finished",
    });
    const reports = events.filter((e) => e.event === "tool_progress");
    expect(reports.length).toBeGreaterThan(0);
    const last = reports.at(-1)?.data as { progress: number; total: number };
    expect(await lines.first().textContent()).toContain(`probe.progress ${last.progress}/${last.total}`);
    expect(problems).toEqual([]);
  });
});
