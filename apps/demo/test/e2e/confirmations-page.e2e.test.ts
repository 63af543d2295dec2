// The /mcp page's "Waiting for confirmation" in a real browser (Debian's Chromium, playwright-core), over
// `agentforge serve` with a roster whose grant puts `filesystem.directory_tree` under `confirm:`. A run
// started from the page stops for the confirmation; it is listed under its run with the preview — markup
// in a preview stays text, nothing runs —; Allow → the run continues and finishes; Deny → the model gets
// the refusal (its narrower retries are asked and denied too) and the run finishes.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./browser-fixtures.js";
import {
  CONFIRMED_TOOL,
  callApi,
  HOSTILE_PREVIEW,
  requireConfirmation,
  seedAwaitingRun,
  serveRoster,
} from "./confirmation-fixtures.js";
import { type Roster, type Served, tempRoster } from "./mcp-fixtures.js";

const POLL = { timeout: 120_000, interval: 250 };

let roster: Roster;
let served: Served;
let context: BrowserContext | undefined;
let page: Page;
let seeded: string;
const problems: string[] = [];

beforeAll(async () => {
  roster = await tempRoster();
  requireConfirmation(roster.config);
  seeded = await seedAwaitingRun(roster.stateDir, {
    folder: realpathSync(join(roster.base, "proj")),
    configPath: realpathSync(roster.config),
    calls: [{ callId: "call-1", argumentsPreview: HOSTILE_PREVIEW, annotations: { destructiveHint: true } }],
  });
  served = await serveRoster(roster);
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

const items = (runId: string) => page.locator(`li.confirmation[data-run="${runId}"]`);
const runOf = async (id: string) => (await callApi(served.url, "GET", `/api/v1/runs/${id}`)).json;

/** Start a docs run with the page's form; resolves with its id once it waits for a confirmation. */
async function startFromPage(): Promise<string> {
  await page.locator("#run-folder").fill("proj");
  await page.getByRole("button", { name: "Start docs run" }).click();
  let id = "";
  await expect
    .poll(async () => {
      id = /Run ([0-9a-f-]{36})/.exec((await page.locator("#run-status").textContent()) ?? "")?.[1] ?? "";
      return id !== "" && (await items(id).count()) > 0;
    }, POLL)
    .toBe(true);
  return id;
}

describe("confirmations on the /mcp page", () => {
  it("lists a pending call under its run with the preview as text (no markup, no script)", async () => {
    await page.goto(`${served.url}/mcp`);
    await items(seeded).first().waitFor();
    await expect(
      page.locator(`section.confirmation-run[data-run="${seeded}"] h3`).textContent(),
    ).resolves.toBe(`Run ${seeded}`);
    const preview = await items(seeded).locator('[data-field="preview"]').textContent();
    expect(preview).toContain("<img src=x onerror=");
    expect(preview).toContain("<b>main</b>");
    expect(await page.locator("#confirmations img, #confirmations b").count()).toBe(0);
    await expect(items(seeded).locator('[data-field="annotations"]').textContent()).resolves.toContain(
      "destructive",
    );
    expect(await page.title()).toBe("MCP servers · agentforge");
  });

  it("a run started on the page stops for the confirmation; Allow → it continues and finishes", {
    timeout: 200_000,
  }, async () => {
    const id = await startFromPage();
    await expect(items(id).first().locator("strong").textContent()).resolves.toBe(CONFIRMED_TOOL);
    await items(id)
      .first()
      .getByRole("button", { name: `Allow ${CONFIRMED_TOOL} (run ${id})` })
      .click();
    await expect.poll(async () => (await runOf(id)).status, POLL).toBe("finished");
    await expect.poll(() => items(id).count(), POLL).toBe(0);
    // The page follows the resumed run to its end.
    await expect.poll(() => page.locator("#run-status").textContent(), POLL).toContain(`Run ${id}: finished`);
    await expect(
      page.locator('#run-log li[data-event="MCP_TOOL_CALL_CONFIRMATION_RESOLVED"]').count(),
    ).resolves.toBeGreaterThan(0);
    const calls = (await runOf(id)).calls as Array<{ identity: string; ok: boolean }>;
    expect(calls.filter((c) => c.identity === CONFIRMED_TOOL)).toEqual([
      expect.objectContaining({ ok: true }),
    ]);
  });

  it("Deny → the model gets the refusal and the run finishes", { timeout: 200_000 }, async () => {
    const id = await startFromPage();
    await expect
      .poll(async () => {
        const run = await runOf(id);
        const deny = items(id)
          .first()
          .getByRole("button", { name: `Deny ${CONFIRMED_TOOL} (run ${id})` });
        if (run.status === "awaiting_confirmation" && (await deny.count()) > 0 && (await deny.isEnabled()))
          await deny.click();
        return run.status;
      }, POLL)
      .toBe("finished");
    const calls = (await runOf(id)).calls as Array<{ identity: string; ok: boolean; errorCode?: string }>;
    const tree = calls.filter((c) => c.identity === CONFIRMED_TOOL);
    expect(tree.length).toBeGreaterThan(0);
    expect(tree.every((c) => !c.ok && c.errorCode === "CONFIRMATION_DENIED")).toBe(true);
    await expect.poll(() => page.locator("#run-status").textContent(), POLL).toContain(`Run ${id}: finished`);
    await expect(
      page
        .locator('#run-log li[data-event="MCP_TOOL_CALL_FAILED"]')
        .filter({ hasText: "CONFIRMATION_DENIED" })
        .count(),
    ).resolves.toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
