// A misbehaving server listed FIRST in the roster must not keep the others from working: its tool list
// (a tool name listed twice) is rejected as a whole, said so in `mcp tools` and `mcp health` and in the
// audit trail, and the Documentation agent still documents the folder through the filesystem server.
// A second server with hostile definitions (names like __proto__, null and self-referencing schemas) is
// bound to the model without crashing anything.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STDIO_TEST_SERVER } from "@agentforge/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agentforge, killRunning } from "./cli.js";
import { exampleServer, stdioServer } from "./mcp-fixtures.js";

const base = mkdtempSync(join(tmpdir(), "agentforge-hostile-"));
afterEach(killRunning);
afterAll(() => rmSync(base, { recursive: true, force: true }));

function roster(): string {
  const file = join(mkdtempSync(join(base, "config-")), "mcp_servers.yaml");
  writeFileSync(
    file,
    `servers:
${stdioServer("twice", [STDIO_TEST_SERVER, "--duplicate-tools"])}
${stdioServer("odd", [STDIO_TEST_SERVER, "--hostile-tools"])}
${exampleServer("filesystem")}
permissions:
  documentation: [twice.*, odd.*, filesystem.*]
`,
  );
  return file;
}

function project(): string {
  const root = join(base, "lighthouse");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "README.md"), "# lighthouse\n\nSwitches the harbour light on at dusk.\n");
  writeFileSync(join(root, "src", "light.py"), "def on():\n    return True\n");
  return root;
}

describe("a hostile server first in the roster", () => {
  const config = roster();
  const state = mkdtempSync(join(base, "state-"));
  const root = project();
  const env = { AGENTFORGE_WORKSPACE: root };

  it("`mcp tools` reports it rejected and lists the others' tools; `mcp health` says why", async () => {
    const tools = await agentforge(["mcp", "tools", "--json", "--config", config, "--state-dir", state], {
      env,
    });
    expect(tools.code, tools.stderr).toBe(1);
    const view = JSON.parse(tools.stdout) as {
      servers: { name: string; status: string; error: { code: string; message: string } | null }[];
      tools: { identity?: string; server?: string; name?: string }[];
    };
    const byName = Object.fromEntries(view.servers.map((s) => [s.name, s]));
    expect(byName.twice).toMatchObject({ status: "rejected", error: { code: "TOOL_DUPLICATE" } });
    expect(byName.twice?.error?.message).toMatch(/echo/);
    expect(byName.odd?.status).toBe("ok");
    expect(byName.filesystem?.status).toBe("ok");
    expect(JSON.stringify(view.tools)).toContain("read_text_file");

    const health = await agentforge(
      ["mcp", "health", "twice", "--json", "--config", config, "--state-dir", state],
      {
        env,
      },
    );
    expect(health.stdout).toContain("TOOL_DUPLICATE");
    expect(health.stdout).toMatch(/unhealthy/);
  });

  it("`docs` documents the folder anyway, and the audit trail records the rejection", async () => {
    const result = await agentforge(["docs", root, "--config", config, "--state-dir", state], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Switches the harbour light on at dusk.");
    const audit = readFileSync(join(state, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; server?: string; errorCode?: string });
    expect(audit).toContainEqual(
      expect.objectContaining({
        event: "MCP_SERVER_TOOLS_REJECTED",
        server: "twice",
        errorCode: "TOOL_DUPLICATE",
      }),
    );
    // The approvals (pins) of the servers that were accepted are kept in the state folder.
    const approvals = JSON.parse(readFileSync(join(state, "tool-approvals.json"), "utf8")) as {
      approvals: { identity: string }[];
    };
    const identities = approvals.approvals.map((a) => a.identity);
    expect(identities).toContain("filesystem.read_text_file");
    expect(identities.some((identity) => identity.startsWith("twice."))).toBe(false);
  });
});
