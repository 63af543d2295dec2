// The default `authorize` with a real opener process: a fake `xdg-open` first on PATH records the
// arguments it was started with. A refused URL never starts it; an accepted one is its only argument.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MCPConnectionError, openInBrowser } from "../../src/index.js";
import { cleanup, rejectionOf, tempDir } from "./helpers.js";

afterEach(cleanup);

describe("openInBrowser", () => {
  let record: string;
  let saved: { PATH?: string; DISPLAY?: string; WAYLAND_DISPLAY?: string };
  let stderr: string[];
  let restoreStderr: () => void;

  beforeEach(() => {
    const bin = tempDir("fake-opener-");
    record = join(bin, "argv.json");
    const script = join(bin, "xdg-open");
    writeFileSync(
      script,
      `#!${process.execPath}\nrequire("node:fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    chmodSync(script, 0o755);
    saved = {
      PATH: process.env.PATH,
      DISPLAY: process.env.DISPLAY,
      WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY,
    };
    process.env.PATH = `${bin}:${process.env.PATH ?? ""}`;
    process.env.DISPLAY = ":99";
    stderr = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    restoreStderr = () => {
      process.stderr.write = write;
    };
  });

  afterEach(() => {
    restoreStderr();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it.skipIf(process.platform !== "linux")(
    "hands an https URL to the desktop opener as its one argument",
    async () => {
      const url = new URL("https://auth.example.com/authorize?client_id=a&state=b c");
      openInBrowser(url, { serverName: "remote", redirectUrl: "http://127.0.0.1:1/callback" });
      await expect.poll(() => existsSync(record), { timeout: 30_000 }).toBe(true);
      expect(JSON.parse(readFileSync(record, "utf8"))).toEqual([url.href]);
      expect(stderr.join("")).toContain(url.href);
    },
  );

  it.each(["file:///etc/passwd", "http://auth.example.com/authorize", "smb://host/share"])(
    "refuses %s: AUTH_FAILED, not printed, no process started",
    async (href) => {
      const error = await rejectionOf(
        (async () =>
          openInBrowser(new URL(href), { serverName: "remote", redirectUrl: "http://127.0.0.1:1/cb" }))(),
      );
      expect(MCPConnectionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "AUTH_FAILED", serverName: "remote" });
      expect(stderr.join("")).toBe("");
      expect(existsSync(record)).toBe(false);
    },
  );
});
