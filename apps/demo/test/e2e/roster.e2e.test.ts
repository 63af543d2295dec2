import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Application } from "../../src/app/application.js";

const state = mkdtempSync(join(tmpdir(), "agentforge-roster-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));
const CHROMIUM = "/usr/bin/chromium";

describe("the shipped roster", () => {
  it("starts every enabled server in parallel; the remote ones are reported unreachable", async () => {
    const app = await Application.create({
      stateDir: state,
      env: { ...process.env, AGENTFORGE_WORKSPACE: state },
    });
    try {
      const byName = Object.fromEntries((app.discovery?.servers ?? []).map((s) => [s.serverName, s]));
      expect(Object.keys(byName).sort()).toEqual(
        [
          "context7",
          "exa",
          "filesystem",
          "github",
          "local-tools",
          "playwright",
          "postgres",
          "sequential-thinking",
        ].sort(),
      );
      for (const local of ["local-tools", "filesystem", "sequential-thinking", "postgres"]) {
        expect(`${local}: ${byName[local]?.status} ${byName[local]?.error?.message ?? ""}`).toBe(
          `${local}: ok `,
        );
      }
      for (const remote of ["github", "context7", "exa"]) {
        expect(byName[remote]?.status).toBe("failed");
        // Failed for a reason found at once (no name, refused, TLS) — not a timeout waited out.
        expect(byName[remote]?.error?.code).toMatch(/^HTTP_(DNS|UNREACHABLE|TLS)$/);
      }
      // The policy grants the Documentation agent the files and thinking tools, and nothing else.
      const granted = app.executor.allowedTools("documentation").map((t) => t.serverName);
      expect([...new Set(granted)].sort()).toEqual(["filesystem", "sequential-thinking"]);
      expect(app.executor.allowedTools("anyone-else")).toEqual([]);
      expect(
        app.registry
          .list({ serverName: "postgres" })
          .map((t) => t.toolName)
          .sort(),
      ).toEqual(["describe_table", "execute_query", "list_schemas", "list_tables"]);
    } finally {
      await app.shutdown();
    }
  });

  it.runIf(existsSync(CHROMIUM))(
    "playwright runs on the system Chromium: healthy, with its browser tools",
    async () => {
      const app = await Application.create({ stateDir: state, servers: ["playwright"], discover: false });
      try {
        const health = await app.manager.healthCheck("playwright");
        expect(`${health.status} ${health.error ?? ""}`).toBe("healthy ");
        expect(health.toolCount).toBeGreaterThan(5);
        const tools = await app.manager.listTools("playwright");
        expect(tools.map((t) => t.toolName)).toContain("browser_navigate");
      } finally {
        await app.shutdown();
      }
    },
  );

  it("without a browser, playwright is unhealthy with a clear 'no browser' error", async () => {
    const missing = join(state, "no-such-chromium");
    const app = await Application.create({
      stateDir: state,
      servers: ["playwright"],
      discover: false,
      env: { ...process.env, PLAYWRIGHT_CHROMIUM: missing },
    });
    try {
      const health = await app.manager.healthCheck("playwright");
      expect(health.status).toBe("unhealthy");
      expect(health.errorCode).toBe("SERVER_EXITED");
      // The path comes from a variable the config reads, so the client redacts it like any such value.
      expect(health.error).toContain("no browser: no executable Chromium at [REDACTED]");
      expect(health.error).toMatch(/set PLAYWRIGHT_CHROMIUM/);
    } finally {
      await app.shutdown();
    }
  });
});
