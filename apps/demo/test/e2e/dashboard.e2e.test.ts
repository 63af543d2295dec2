// The /mcp page in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
// browser), headless, with a fresh profile. `agentforge serve` runs the shipped roster.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, launchBrowser } from "./browser-fixtures.js";
import { SAMPLE_PROJECT, type Served, startServe, TEST_OUTPUT } from "./mcp-fixtures.js";

// The browser globals used inside page callbacks (this project compiles without the DOM lib).
interface PageElement {
  id: string;
  textContent: string | null;
  labels?: { length: number } | null;
  getAttribute(name: string): string | null;
  scrollIntoView(options?: { block?: "start" | "center" | "end" | "nearest" }): void;
}
declare const document: {
  activeElement: PageElement | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
};

const LOCAL = ["local-tools", "filesystem", "sequential-thinking", "postgres"];
const REMOTE = ["github", "context7", "exa"];
const SCREENSHOT = join(TEST_OUTPUT, "mcp-dashboard.png");

let dir: string;
let served: Served | undefined;
let context: BrowserContext | undefined;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentforge-dashboard-"));
  const base = join(dir, "base");
  mkdirSync(base);
  cpSync(SAMPLE_PROJECT, join(base, "sample-project"), { recursive: true });
  served = await startServe(["--port", "0", "--state-dir", join(dir, "state"), "--allowed-base", base], {
    cwd: dir,
  });
  context = await launchBrowser(dir, { viewport: { width: 1280, height: 900 } });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await served?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const card = (name: string) => page.locator(`li.card[data-server="${name}"]`);
const badge = (name: string) => card(name).locator('[data-field="status"]');

describe("the /mcp page", () => {
  it("lists every server as a card; local servers turn healthy, remote ones unreachable", {
    timeout: 200_000,
  }, async () => {
    expect(existsSync(CHROMIUM)).toBe(true);
    const response = await page.goto(`${served?.url}/mcp`);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe("MCP servers · agentforge");
    await page.locator("li.card").first().waitFor();
    expect(
      await page.locator("li.card").evaluateAll((cards) => cards.map((c) => c.getAttribute("data-server"))),
    ).toEqual([...LOCAL.slice(0, 3), "postgres", ...REMOTE, "playwright"]);
    // The start-up health checks finish in the background (postgres and playwright take seconds).
    await page.waitForFunction(
      () =>
        document.querySelectorAll('li.card[data-status="checking"], li.card[data-status="unknown"]')
          .length === 0,
      undefined,
      { timeout: 180_000 },
    );
    for (const name of LOCAL) {
      expect(`${name}: ${await badge(name).textContent()}`).toBe(`${name}: healthy`);
      expect(Number(await card(name).locator('[data-field="tools"]').textContent())).toBeGreaterThan(0);
      expect(await card(name).locator('[data-field="checked"]').getAttribute("datetime")).toMatch(
        /^\d{4}-\d{2}-\d{2}T/,
      );
      // The first-party servers serve both revisions; auto negotiates the newer one.
      expect(await card(name).locator('[data-field="protocol"]').textContent()).toBe("2026-07-28");
    }
    for (const name of REMOTE) {
      expect(`${name}: ${await badge(name).textContent()}`).toBe(`${name}: unhealthy`);
      expect(await card(name).locator('[data-field="error"]').textContent()).toMatch(
        /HTTP_(DNS|UNREACHABLE|TLS)/,
      );
      expect(await card(name).locator('[data-field="transport"]').textContent()).toBe("http");
    }
    await expect(page.locator("#summary").textContent()).resolves.toMatch(
      /^8 servers: \d healthy, \d unhealthy$/,
    );
  });

  it('"check health" updates the status and the time (mouse and keyboard)', { timeout: 60_000 }, async () => {
    for (const [name, how] of [
      ["local-tools", "click"],
      ["github", "click"],
      ["sequential-thinking", "keyboard"],
    ] as const) {
      const checked = card(name).locator('[data-field="checked"]');
      const before = (await checked.getAttribute("datetime")) as string;
      const button = page.getByRole("button", { name: `Check health of ${name}` });
      if (how === "click") await button.click();
      else {
        await button.focus();
        await page.keyboard.press("Enter");
      }
      await page.waitForFunction(
        ([server, old]) => {
          const time = document.querySelector(`li.card[data-server="${server}"] [data-field="checked"]`);
          return (
            time?.getAttribute("datetime") !== old &&
            document.querySelector(`li.card[data-server="${server}"]`)?.getAttribute("data-status") !==
              "checking"
          );
        },
        [name, before] as const,
        { timeout: 50_000 },
      );
      const after = (await checked.getAttribute("datetime")) as string;
      expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
      expect(await badge(name).textContent()).toBe(name === "github" ? "unhealthy" : "healthy");
      await expect(page.locator("#servers-status").textContent()).resolves.toContain(
        `${name} is ${name === "github" ? "unhealthy" : "healthy"}`,
      );
    }
    // Focus stays on the button that was pressed, for keyboard users.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Check health of sequential-thinking",
    );
  });

  it("shows the tools of a server on click (a POST: listing may start it), with the agents allowed to call each", async () => {
    const toolRequests: string[] = [];
    const onRequest = (request: { url(): string; method(): string }) => {
      if (/\/api\/v1\/mcp\/servers\/[^/]+\/tools$/.test(request.url()))
        toolRequests.push(`${request.method()} ${new URL(request.url()).pathname}`);
    };
    page.on("request", onRequest);
    const button = page.getByRole("button", { name: "Show tools of filesystem" });
    await button.click();
    const panel = page.locator("#tools-panel");
    await panel.locator('tr[data-tool="filesystem.read_text_file"]').waitFor();
    expect(await panel.isVisible()).toBe(true);
    expect(await page.locator("#tools-heading").textContent()).toBe("Tools of filesystem");
    expect(await button.getAttribute("aria-expanded")).toBe("true");
    const row = panel.locator('tr[data-tool="filesystem.read_text_file"]');
    expect(await row.locator("td").last().textContent()).toBe("documentation");
    expect(await panel.locator("tbody tr").count()).toBe(10);
    // A server nobody is granted: "none (deny by default)".
    await page.getByRole("button", { name: "Show tools of local-tools" }).click();
    await panel.locator('tr[data-tool="local-tools.echo"]').waitFor();
    expect(await panel.locator('tr[data-tool="local-tools.echo"] td').last().textContent()).toBe(
      "none (deny by default)",
    );
    page.off("request", onRequest);
    expect(toolRequests).toEqual([
      "POST /api/v1/mcp/servers/filesystem/tools",
      "POST /api/v1/mcp/servers/local-tools/tools",
    ]);
  });

  it('"refresh all" reconnects every server and reports what it found', { timeout: 200_000 }, async () => {
    await page.getByRole("button", { name: "Refresh all" }).click();
    await page.waitForFunction(
      () => document.querySelector("#servers-status")?.textContent?.startsWith("Refreshed:"),
      undefined,
      {
        timeout: 180_000,
      },
    );
    // The three remote servers fail (and playwright, if npx cannot fetch its package).
    const status = await page.locator("#servers-status").textContent();
    const servers = (await (await fetch(`${served?.url}/api/v1/mcp/servers`)).json()) as {
      servers: {
        name: string;
        health: { status: string; error: { code: string; message: string } | null };
      }[];
    };
    const summary = servers.servers
      .map(
        (s) => `${s.name}: ${s.health.status} ${s.health.error?.code ?? ""} ${s.health.error?.message ?? ""}`,
      )
      .join("\n");
    expect(`${status}\n${summary}`).toMatch(
      /^Refreshed: \d+ tools rediscovered in \d+ ms, [34] servers failed\.\n/,
    );
    for (const name of LOCAL) expect(`${name}: ${await badge(name).textContent()}`).toBe(`${name}: healthy`);
  });

  it("starts a docs run and shows its events live (SSE)", { timeout: 120_000 }, async () => {
    await page.getByLabel("Folder").fill("sample-project");
    await page.getByRole("button", { name: "Start docs run" }).click();
    const log = page.locator("#run-log");
    await log.locator('li[data-event="run_started"]').waitFor({ timeout: 60_000 });
    await log.locator('li[data-event="run_finished"]').waitFor({ timeout: 90_000 });
    // Tool calls arrived before the end (the whole log is in the message if not).
    expect(await log.textContent()).toMatch(/MCP_TOOL_CALL_COMPLETED — ✓ filesystem\./);
    await page.waitForFunction(
      () => /: finished, \d+ tool calls/.test(document.querySelector("#run-status")?.textContent ?? ""),
      undefined,
      {
        timeout: 30_000,
      },
    );
    const ids = await log
      .locator("li")
      .evaluateAll((items) => items.map((li) => Number(li.getAttribute("data-id"))));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(await log.locator('li[data-event="MCP_TOOL_CALL_STARTED"]').count()).toBeGreaterThan(2);
    expect(await log.locator('li[data-event="round_saved"]').count()).toBeGreaterThan(0);
    expect(await log.locator('li[data-event="MCP_TOOL_CALL_COMPLETED"]').first().textContent()).toMatch(
      /✓ (filesystem|sequential-thinking)\.\w+ ok in \d+ ms/,
    );
    expect(await page.locator("#run-document").isVisible()).toBe(true);
    await page.locator("#run-document summary").click();
    expect(await page.locator("#run-document-text").textContent()).toMatch(/^# /);
  });

  it("is accessible: every control has a name, every input a label, and nothing errored", async () => {
    const unnamed = await page.evaluate(
      () =>
        [...document.querySelectorAll("button")].filter(
          (b) => !(b.getAttribute("aria-label") || b.textContent?.trim()),
        ).length,
    );
    expect(unnamed).toBe(0);
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll("input")].filter((i) => i.labels?.length === 0).map((i) => i.id),
    );
    expect(unlabelled).toEqual([]);
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    expect(await page.getByRole("log").count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it("asks for the API token when the server requires one, then works with it", async () => {
    const token = "dashboard-token-0123456789";
    const guarded = await startServe(
      ["--port", "0", "--state-dir", join(dir, "state"), "--allowed-base", dir, "--no-check"],
      {
        cwd: dir,
        env: { AGENTFORGE_API_TOKEN: token },
      },
    );
    const second = await context?.newPage();
    try {
      if (!second) throw new Error("no browser context");
      await second.goto(`${guarded.url}/mcp`);
      await second.getByLabel("Bearer token (the value of AGENTFORGE_API_TOKEN)").waitFor();
      expect(await second.locator("li.card").count()).toBe(0);
      await second.getByLabel("Bearer token (the value of AGENTFORGE_API_TOKEN)").fill(token);
      await second.getByRole("button", { name: "Use token" }).click();
      await second.locator('li.card[data-server="local-tools"]').waitFor();
      expect(await second.locator("li.card").count()).toBe(8);
      expect(await second.locator("#auth").isHidden()).toBe(true);
    } finally {
      await second?.close();
      await guarded.stop();
    }
  });

  it("saves a screenshot of the page", async () => {
    mkdirSync(TEST_OUTPUT, { recursive: true });
    // The cards are re-rendered every 2 s: a locator's scroll can find its element detached midway (seen
    // once), so wait for the card, then scroll in one page-side step.
    await page.locator('li.card[data-server="local-tools"]').waitFor();
    await page.evaluate(() =>
      document.querySelector('li.card[data-server="local-tools"]')?.scrollIntoView({ block: "center" }),
    );
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
  });
});
