// The built CLI on a large roster (config/public-servers.yaml: 14 servers, about 135 tools — the
// first-party filesystem and sequential-thinking servers, and 12 public servers' recorded tool lists
// served by the replay server): `mcp tools --agent --search` shows what a search returns, and
// `docs` runs with tool search on (auto), the offline model searching for its file tools first.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agentforge, killRunning } from "./cli.js";

const ROSTER = fileURLToPath(new URL("../../config/public-servers.yaml", import.meta.url));
const SAMPLE = fileURLToPath(new URL("../../sample-project", import.meta.url));
const base = mkdtempSync(join(tmpdir(), "agentforge-search-"));
afterEach(killRunning);
afterAll(() => rmSync(base, { recursive: true, force: true }));

const auditLines = (state: string) =>
  readFileSync(join(state, "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("agentforge mcp tools --agent --search", () => {
  it("shows the agent's best tools for a request, and whether its runs search; the audit keeps no query", async () => {
    const state = mkdtempSync(join(base, "state-"));
    const query = "How high above sea level is Denver?";
    const result = await agentforge(
      [
        "mcp",
        "tools",
        "--config",
        ROSTER,
        "--state-dir",
        state,
        "--agent",
        "documentation",
        "--search",
        query,
        "--json",
      ],
      { timeoutMs: 180_000 },
    );
    expect(result.code).toBe(0);
    const view = JSON.parse(result.stdout);
    expect(view.hits[0]).toMatchObject({ identity: "google-maps.maps_elevation" });
    expect(view.hits.length).toBeLessThanOrEqual(5);
    expect(view).toMatchObject({ agent: "documentation", query, search: { mode: "auto", on: true } });
    expect(view.candidates).toBeGreaterThan(100);
    expect(view.search.reason).toMatch(/granted tools are more than 30/);
    const searches = auditLines(state).filter((l) => l.event === "MCP_TOOL_SEARCH");
    expect(searches).toEqual([
      expect.objectContaining({ agent: "documentation", queryLength: query.length, outcome: "ok" }),
    ]);
    expect((searches[0]?.found as string[] | undefined)?.[0]).toBe("google-maps.maps_elevation");
    expect(JSON.stringify(auditLines(state))).not.toContain("Denver");

    const text = await agentforge(
      [
        "mcp",
        "tools",
        "google-maps",
        "--config",
        ROSTER,
        "--state-dir",
        state,
        "--agent",
        "documentation",
        "--search",
        "directions",
        "--limit",
        "2",
      ],
      { timeoutMs: 180_000 },
    );
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Tools of agent documentation for "directions" \(\d+ searched\)/);
    expect(text.stdout).toMatch(
      /1 +google-maps\.maps_directions +\d+\.\d\d +Get directions between two points/,
    );
    // Only google-maps was listed: 7 tools, under the threshold.
    expect(text.stdout).toMatch(
      /a run with these tools would search for them: no \(auto: 7 tools, \d+ characters: under the threshold\)/,
    );
  });

  it("an agent granted nothing finds nothing; --search needs --agent; the options belong to tools", async () => {
    const state = mkdtempSync(join(base, "state-"));
    const nobody = await agentforge(
      [
        "mcp",
        "tools",
        "git",
        "--config",
        ROSTER,
        "--state-dir",
        state,
        "--agent",
        "nobody",
        "--search",
        "commit",
      ],
      { timeoutMs: 180_000 },
    );
    expect(nobody.code).toBe(0);
    expect(nobody.stdout).toContain("(the agent is granted no tool)");
    const missing = await agentforge(["mcp", "tools", "--config", ROSTER, "--search", "commit"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--agent <agent> --search/);
    const elsewhere = await agentforge([
      "mcp",
      "health",
      "--config",
      ROSTER,
      "--agent",
      "x",
      "--search",
      "y",
    ]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/options of mcp tools only/);
  });
});

describe("agentforge docs on the large roster", () => {
  it("searches for its file tools, documents the folder, and keeps what it found in the saved run", async () => {
    const folder = join(base, "tidewatch");
    cpSync(SAMPLE, folder, { recursive: true });
    const state = mkdtempSync(join(base, "state-"));
    const result = await agentforge(["docs", folder, "--config", ROSTER, "--state-dir", state, "--json"], {
      timeoutMs: 240_000,
    });
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.status).toBe("finished");
    expect(json.document).toMatch(/^# tidewatch/);
    expect(json.document).toContain("## Key files");
    expect(json.calls.some((c: { identity: string }) => c.identity === "filesystem.read_text_file")).toBe(
      true,
    );
    // The first model turn had only search_tools: its calls are the three searches.
    const firstTurn = json.transcript.find((m: { type: string }) => m.type === "ai");
    expect(firstTurn.data.tool_calls.map((c: { name: string }) => c.name)).toEqual([
      "search_tools",
      "search_tools",
      "search_tools",
    ]);
    const saved = JSON.parse(readFileSync(join(state, "runs", `${json.runId}.json`), "utf8"));
    expect(saved.state.toolSearch.loaded).toEqual(
      expect.arrayContaining([
        "filesystem.list_directory",
        "filesystem.directory_tree",
        "filesystem.read_text_file",
      ]),
    );
    expect(saved.state.toolSearch.searches).toHaveLength(3);
    const audit = auditLines(state);
    const searches = audit.filter((l) => l.event === "MCP_TOOL_SEARCH");
    expect(searches).toHaveLength(3);
    for (const line of searches) {
      expect(Object.keys(line).sort()).toEqual(
        ["agent", "at", "candidates", "event", "found", "outcome", "queryLength", "searchId"].sort(),
      );
    }
    expect(JSON.stringify(audit)).not.toContain("read a text file");
  });
});
