// `agentforge docs --model openai|anthropic|ollama` through the REAL provider client libraries, against
// in-repo servers that speak each provider's HTTP API and enforce its request rules (every tool call
// answered before the next turn, tool blocks need tools, model-safe names, object schemas). The script
// sends what real models send: a wrongly typed argument, an unknown tool, malformed JSON arguments, and a
// full round budget, so the last call must be made in a form the provider accepts. No keys, no network.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ModelProvider,
  type ModelServer,
  type ScriptedToolCall,
  startModelServer,
} from "@agentforge/model-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agentforge, killRunning } from "./cli.js";
import { exampleServer } from "./mcp-fixtures.js";

const base = mkdtempSync(join(tmpdir(), "agentforge-providers-"));
const servers: ModelServer[] = [];
afterEach(async () => {
  killRunning();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function project(name: string): string {
  const root = join(base, name);
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "README.md"), `# ${name}\n\nCounts the tides of a harbour.\n`);
  writeFileSync(join(root, "src", "tides.py"), "def high_water(day):\n    return day % 12\n");
  return root;
}

function roster(): string {
  const file = join(mkdtempSync(join(base, "config-")), "mcp_servers.yaml");
  writeFileSync(
    file,
    `servers:
${exampleServer("filesystem")}
permissions:
  documentation: [filesystem.*]
`,
  );
  return file;
}

/** The text of every tool result a request carries, in the provider's own message format. */
// biome-ignore lint/suspicious/noExplicitAny: request bodies are the providers' JSON, inspected freely.
function toolResults(provider: ModelProvider, body: any): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: see above.
  const messages: any[] = body?.messages ?? [];
  if (provider === "anthropic") {
    return messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((block) => block.type === "tool_result")
      .map((block) =>
        typeof block.content === "string"
          ? block.content
          : // biome-ignore lint/suspicious/noExplicitAny: see above.
            (block.content ?? []).map((part: any) => part.text ?? "").join(""),
      );
  }
  return messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

interface Case {
  provider: ModelProvider;
  env: (server: ModelServer) => NodeJS.ProcessEnv;
  /** The provider's client keeps malformed JSON arguments as an invalid tool call (openai does). */
  malformedArguments: boolean;
  /** How the last call after the round budget asks for an answer without tools. */
  finalCall: "tool_choice_none" | "text_history";
}

const CASES: Case[] = [
  {
    provider: "openai",
    env: (server) => ({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseURL }),
    malformedArguments: true,
    finalCall: "tool_choice_none",
  },
  {
    provider: "anthropic",
    env: (server) => ({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.baseURL }),
    malformedArguments: false,
    finalCall: "tool_choice_none",
  },
  {
    provider: "ollama",
    env: (server) => ({ OLLAMA_BASE_URL: server.baseURL }),
    malformedArguments: false,
    finalCall: "text_history",
  },
];

describe.each(CASES)(
  "agentforge docs --model $provider (real client)",
  ({ provider, env, malformedArguments, finalCall }) => {
    it("a bad argument, an unknown tool and a spent round budget go back to the model; the run finishes", async () => {
      const root = project(`tides-${provider}`);
      const state = mkdtempSync(join(base, "state-"));
      const round1: ScriptedToolCall[] = [
        { name: "filesystem__read_text_file", args: { path: 12345 } },
        { name: "filesystem__delete_everything", args: {} },
        { name: "filesystem__list_directory", args: { path: root } },
      ];
      if (malformedArguments) round1.push({ name: "filesystem__read_text_file", argsText: '{"path": oops' });
      const server = await startModelServer(provider, {
        turns: [
          { toolCalls: round1 },
          { toolCalls: [{ name: "filesystem__read_text_file", args: { path: join(root, "README.md") } }] },
          { text: "# Tides\n\n## Purpose\nCounts the tides of a harbour (README.md)." },
        ],
      });
      servers.push(server);

      const result = await agentforge(
        ["docs", root, "--model", provider, "--max-rounds", "2", "--config", roster(), "--state-dir", state],
        { env: { ...env(server), AGENTFORGE_WORKSPACE: root } },
      );

      // Every request the client made was accepted by the provider's rules, and the script was used up.
      expect(
        server.requests.map((r) => r.status),
        JSON.stringify(server.requests.map((r) => r.error ?? "")),
      ).toEqual([200, 200, 200]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("Counts the tides of a harbour (README.md).");

      // Round 1's answers: each call answered, the mistakes as errors the model can correct.
      const answers = toolResults(provider, server.requests[1]?.body);
      expect(answers.length).toBe(round1.length);
      expect(answers.find((text) => text.includes("INVALID_ARGUMENTS"))).toMatch(/path/);
      expect(answers.find((text) => text.includes("TOOL_NOT_FOUND"))).toBeDefined();
      expect(answers.some((text) => text.includes("README.md"))).toBe(true);
      // A wrong argument's value is never echoed back.
      expect(answers.join("\n")).not.toContain("12345");
      // The final call carries the whole history (as tool results or as text, per provider), with the
      // second round's file read answered.
      expect(JSON.stringify(server.requests[2]?.body)).toContain("Counts the tides of a harbour.");

      // The last call: tools still defined with tool choice "none", or no tools and no tool turns at all.
      const last = server.requests[2]?.body;
      if (finalCall === "tool_choice_none") {
        expect(last.tools?.length).toBeGreaterThan(0);
        expect(provider === "anthropic" ? last.tool_choice?.type : last.tool_choice).toBe("none");
      } else {
        expect(last.tools ?? []).toEqual([]);
        expect(toolResults(provider, last)).toEqual([]);
      }

      // The audit trail has a line for each failed call, with its stable code.
      const audit = readFileSync(join(state, "audit.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { event: string; errorCode?: string });
      const failed = audit.filter((line) => line.event === "MCP_TOOL_CALL_FAILED").map((l) => l.errorCode);
      expect(failed).toContain("INVALID_ARGUMENTS");
      expect(failed).toContain("TOOL_NOT_FOUND");
      if (malformedArguments) expect(failed.filter((code) => code === "INVALID_ARGUMENTS").length).toBe(2);
    });
  },
);
