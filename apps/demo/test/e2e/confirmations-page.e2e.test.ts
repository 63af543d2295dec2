// The /mcp page's "Waiting for confirmation" in a real browser (Debian's Chromium, playwright-core): the
// pending calls grouped per run with their preview — markup in it stays text, nothing runs —, and Allow /
// Deny answering them: the list empties, the run continues and finishes.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./browser-fixtures.js";
import { callApi, HOSTILE_PREVIEW, seedAwaitingRun } from "./confirmation-fixtures.js";
import { type Roster, type Served, startServe, tempRoster } from "./mcp-fixtures.js";

let roster: Roster;
let served: Served;
let context: BrowserContext | undefined;
let page: Page;
let runAllow: string;
let runDeny: string;
const problems: string[] = [];

beforeAll(async () => {
  roster = await tempRoster();
  const seed = { folder: realpathSync(join(roster.base, "proj")), configPath: realpathSync(roster.config) };
  runAllow = await seedAwaitingRun(roster.stateDir, {
    ...seed,
    calls: [{ callId: "call-1", argumentsPreview: HOSTILE_PREVIEW, annotations: { destructiveHint: true } }],
  });
  runDeny = await seedAwaitingRun(roster.stateDir, { ...seed, calls: [{ callId: "call-2" }] });
  served = await startServe(
    [
      "--port",
      "0",
      "--no-check",
      "--config",
      roster.config,
      "--state-dir",
      roster.stateDir,
      "--allowed-base",
      roster.base,
    ],
    { env: roster.env, cwd: roster.dir },
  );
  context = await launchBrowser(roster.dir, { viewport: { width: 1280, height: 900 } });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await served?.stop();
  roster?.cleanup();
});

const item = (runId: string) => page.locator(`li.confirmation[data-run="${runId}"]`);

async function runStatus(id: string): Promise<unknown> {
  return (await callApi(served.url, "GET", `/api/v1/runs/${id}`)).json.status;
}

describe("confirmations on the /mcp page", () => {
  it("lists each run's pending call with its preview as text (no markup, no script)", async () => {
    await page.goto(`${served.url}/mcp`);
    await item(runAllow).waitFor();
    await expect(
      page.locator(`section.confirmation-run[data-run="${runAllow}"] h3`).textContent(),
    ).resolves.toBe(`Run ${runAllow}`);
    const preview = await item(runAllow).locator('[data-field="preview"]').textContent();
    expect(preview).toContain("<img src=x onerror=");
    expect(preview).toContain("<b>main</b>");
    expect(await page.locator("#confirmations img, #confirmations b").count()).toBe(0);
    await expect(item(runAllow).locator('[data-field="annotations"]').textContent()).resolves.toContain(
      "destructive",
    );
    expect(await page.title()).toBe("MCP servers · agentforge");
    await expect(
      item(runDeny)
        .getByRole("button", { name: /^Deny local-tools\.echo/ })
        .count(),
    ).resolves.toBe(1);
  });

  it("Allow answers it: the item leaves the list and the run finishes", async () => {
    await item(runAllow)
      .getByRole("button", { name: `Allow local-tools.echo (run ${runAllow})` })
      .click();
    await expect.poll(() => item(runAllow).count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.locator("#confirmations-status").textContent()).toContain("allowed");
    await expect.poll(() => runStatus(runAllow), { timeout: 120_000, interval: 250 }).toBe("finished");
  });

  it("Deny answers it: the run continues and finishes too", async () => {
    await item(runDeny)
      .getByRole("button", { name: `Deny local-tools.echo (run ${runDeny})` })
      .click();
    await expect.poll(() => item(runDeny).count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => runStatus(runDeny), { timeout: 120_000, interval: 250 }).toBe("finished");
    const confirmations = (await callApi(served.url, "GET", "/api/v1/confirmations")).json.confirmations;
    expect(confirmations).toEqual([]);
    await expect(page.locator("#confirmations-summary").textContent()).resolves.toBe(
      "Nothing is waiting for confirmation.",
    );
    expect(problems).toEqual([]);
  });
});
