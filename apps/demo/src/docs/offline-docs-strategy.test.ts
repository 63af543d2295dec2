import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createOfflineDocsStrategy } from "./offline-docs-strategy.js";

const tools = [
  "filesystem__list_directory",
  "filesystem__directory_tree",
  "filesystem__read_text_file",
  "sequential-thinking__sequentialthinking",
].map((name) => ({ name, description: "", parameters: {} }));
const strategy = createOfflineDocsStrategy({ root: "/w/proj", fallbackName: "proj" });

function reply(
  id: string,
  name: string,
  args: Record<string, unknown>,
  content: string,
  status: "success" | "error" = "success",
) {
  return [
    new AIMessage({ content: "", tool_calls: [{ id, name, args, type: "tool_call" }] }),
    new ToolMessage({ content, tool_call_id: id, name, status }),
  ];
}

describe("the offline documentation strategy", () => {
  it("first surveys the folder with every granted survey tool", () => {
    const first = strategy({ messages: [new HumanMessage("Document /w/proj")], tools, callIndex: 0 });
    expect(typeof first === "object" && "toolCalls" in first && first.toolCalls.map((c) => c.name)).toEqual([
      "filesystem__list_directory",
      "filesystem__directory_tree",
      "sequential-thinking__sequentialthinking",
    ]);
  });

  it("then reads the key files the tree shows, by priority", () => {
    const tree = JSON.stringify([
      { name: "README.md", type: "file" },
      { name: "package.json", type: "file" },
      { name: "notes.txt", type: "file" },
      {
        name: "src",
        type: "directory",
        children: [
          { name: "index.ts", type: "file" },
          { name: "util.ts", type: "file" },
        ],
      },
      {
        name: "deep",
        type: "directory",
        children: [{ name: "x", type: "directory", children: [{ name: "main.go", type: "file" }] }],
      },
    ]);
    const next = strategy({
      messages: [
        new HumanMessage("go"),
        ...reply("1", "filesystem__directory_tree", { path: "/w/proj" }, tree),
      ],
      tools,
      callIndex: 1,
    });
    if (typeof next !== "object" || !("toolCalls" in next)) throw new Error("expected tool calls");
    expect(
      next.toolCalls.filter((c) => c.name === "filesystem__read_text_file").map((c) => c.args.path),
    ).toEqual(["/w/proj/README.md", "/w/proj/package.json", "/w/proj/src/index.ts"]);
  });

  it("finally writes the overview only from what came back", () => {
    const messages = [
      new HumanMessage("go"),
      ...reply(
        "1",
        "filesystem__list_directory",
        { path: "/w/proj" },
        "[FILE] README.md\n[FILE] Makefile\n[DIR] src",
      ),
      ...reply(
        "2",
        "filesystem__read_text_file",
        { path: "/w/proj/README.md" },
        "# Proj\n\nDoes one thing well.\n\n## Usage\n\nRun `make`.\n",
      ),
      ...reply(
        "3",
        "filesystem__read_text_file",
        { path: "/w/proj/Makefile" },
        "build:\n\tcc main.c\nclean:\n\trm -f a.out\n",
      ),
      ...reply(
        "4",
        "filesystem__read_text_file",
        { path: "/w/proj/secret.txt" },
        "Error (TOOL_ERROR): Access denied - path outside allowed directories",
        "error",
      ),
    ];
    const doc = strategy({ messages, tools, callIndex: 2 });
    expect(doc).toBe(`# Proj

## Purpose

Does one thing well.

## Layout

- \`README.md\`
- \`Makefile\`

## Key files

- \`README.md\` — Proj
- \`Makefile\` — starts with \`build:\`
- \`secret.txt\` — could not be read (Error (TOOL_ERROR): Access denied - path outside allowed directories)

## How to run

- Make targets: \`make build\`, \`make clean\`

From the README:

Run \`make\`.

## At a glance

- 2 files: 1 × (none), 1 × md
- Written offline from 4 MCP tool calls: filesystem.list_directory, filesystem.read_text_file
`);
  });

  it("writes with what it has when called without tools", () => {
    expect(strategy({ messages: [new HumanMessage("go")], tools: [], callIndex: 0 })).toMatch(/^# proj\n/);
  });
});
