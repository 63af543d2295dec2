// The one way the demo's page tests start a browser: Debian's Chromium (or PLAYWRIGHT_CHROMIUM) through
// playwright-core, headless, with a throw-away profile and the flags TOOLCHAIN.md lists for this machine
// (no sandbox: the tests run as root; nothing that reaches the network on its own).
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = process.env.PLAYWRIGHT_CHROMIUM ?? "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A headless Chromium with its profile in `dir`/profile. Close it in the test's afterAll. */
export function launchBrowser(
  dir: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(join(dir, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    ...(options.viewport ? { viewport: options.viewport } : {}),
  });
}
