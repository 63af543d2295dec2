// Playwright MCP (the real @playwright/mcp, a dev dependency) through the demo's launcher on Debian's
// Chromium: the browser tools must work when the app runs as root (CI, containers), where Chromium
// cannot sandbox itself, and a screenshot comes back as an image the executor hands over intact.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application } from "../../src/app/application.js";

import { CHROMIUM } from "./browser-fixtures.js";

const require = createRequire(import.meta.url);
const playwrightCli = join(dirname(require.resolve("@playwright/mcp/package.json")), "cli.js");
const launcher = fileURLToPath(new URL("../../dist/playwright-launcher.js", import.meta.url));
const AGENT = "browser";

let dir: string;
let page: Server;
let pageUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentforge-playwright-"));
  page = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(
      '<!doctype html><title>Harbour clock</title><h1 style="color:#0a7">Tide at 06:12</h1><p>Local page.</p>',
    );
  });
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => page.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function roster(extraArgs: string[] = []): string {
  const file = join(dir, `roster-${extraArgs.length}.yaml`);
  const args = [
    launcher,
    "--executable-path",
    CHROMIUM,
    "--",
    process.execPath,
    playwrightCli,
    "--headless",
    "--isolated",
    "--executable-path",
    CHROMIUM,
    // Its files (console logs, unnamed screenshots) go here, not into the working directory.
    "--output-dir",
    join(dir, "output"),
    ...extraArgs,
  ];
  writeFileSync(
    file,
    [
      "servers:",
      "  - name: playwright",
      "    enabled: true",
      "    transport: stdio",
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: ${JSON.stringify(args)}`,
      "    connection_timeout: 120",
      "    tool_timeout: 120",
      "permissions:",
      `  ${AGENT}: [playwright.*]`,
      "",
    ].join("\n"),
  );
  return file;
}

describe.runIf(existsSync(CHROMIUM))("Playwright MCP through the launcher", () => {
  it("navigates and takes a screenshot (as root: the launcher adds --no-sandbox)", async () => {
    const app = await Application.create({ configPath: roster(), stateDir: join(dir, "state") });
    try {
      const navigated = await app.executor.execute(AGENT, "playwright.browser_navigate", { url: pageUrl });
      expect(navigated.text).toContain("Harbour clock");
      expect(navigated.text).not.toMatch(/sandbox/i);

      const shot = await app.executor.execute(AGENT, "playwright.browser_take_screenshot", {});
      const images = (shot.raw.content ?? []).filter((part) => part.type === "image");
      expect(images.length).toBe(1);
      const image = images[0] as { mimeType?: string; data?: string };
      expect(image.mimeType).toMatch(/^image\/(png|jpeg)$/);
      // A real picture: the PNG/JPEG signature, not an error text.
      const bytes = Buffer.from(image.data ?? "", "base64");
      expect(bytes.length).toBeGreaterThan(1000);
      expect([0x89, 0xff]).toContain(bytes[0]);
    } finally {
      await app.shutdown();
    }
  });

  it("blocks file:// pages by default; --allow-unrestricted-file-access opens them", async () => {
    const local = join(dir, "local.html");
    writeFileSync(local, "<!doctype html><title>Local file page</title><p>from disk</p>");
    const url = `file://${local}`;
    const strict = await Application.create({ configPath: roster(), stateDir: join(dir, "state") });
    try {
      // Refused either as an error result or as a page that never loaded: never the file's content.
      const refused = await strict.executor.execute(AGENT, "playwright.browser_navigate", { url }).then(
        (result) => result.text,
        (error: Error) => error.message,
      );
      expect(refused).not.toContain("Local file page");
    } finally {
      await strict.shutdown();
    }
    const open = await Application.create({
      configPath: roster(["--allow-unrestricted-file-access"]),
      stateDir: join(dir, "state"),
    });
    try {
      const opened = await open.executor.execute(AGENT, "playwright.browser_navigate", { url });
      expect(opened.text).toContain("Local file page");
    } finally {
      await open.shutdown();
    }
  });
});
