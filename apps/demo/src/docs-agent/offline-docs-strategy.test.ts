import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createOfflineDocsStrategy, OFFLINE_BUDGET } from "./offline-docs-strategy.js";

const tools = [
  "filesystem__list_directory",
  "filesystem__directory_tree",
  "filesystem__read_text_file",
  "sequential-thinking__sequentialthinking",
].map((name) => ({ name, description: "", parameters: {} }));
const ROOT = "/w/proj";
const strategy = createOfflineDocsStrategy({ root: ROOT, fallbackName: "proj" });

/**
 * A folder in memory answering the three survey tools the way the filesystem server does (listing
 * lines, 2-space JSON tree, file heads), each reply cut at 8,000 characters like the executor's bound.
 * It is our own stand-in for data, not a mocked client: the e2e file runs the real server.
 */
function memoryFolder(files: Record<string, string>) {
  const cap = (text: string) =>
    text.length > 8000 ? `${text.slice(0, 8000)}... [${text.length - 8000} characters truncated]` : text;
  const rel = (path: unknown) => String(path).slice(ROOT.length + 1);
  const childrenOf = (folder: string) => {
    const prefix = folder ? `${folder}/` : "";
    const names = new Map<string, "file" | "directory">();
    for (const path of Object.keys(files)) {
      if (!path.startsWith(prefix)) continue;
      const [head, ...rest] = path.slice(prefix.length).split("/");
      names.set(head as string, rest.length > 0 ? "directory" : "file");
    }
    return [...names].sort(([a], [b]) => a.localeCompare(b));
  };
  const tree = (folder: string, exclude: Set<string>): unknown[] =>
    childrenOf(folder)
      .filter(([name]) => !exclude.has(name))
      .map(([name, type]) =>
        type === "file"
          ? { name, type }
          : { name, type, children: tree(folder ? `${folder}/${name}` : name, exclude) },
      );
  return (name: string, args: Record<string, unknown>): string => {
    const path = args.path === ROOT ? "" : rel(args.path);
    if (name.endsWith("list_directory"))
      return cap(
        childrenOf(path)
          .map(([n, t]) => `${t === "file" ? "[FILE]" : "[DIR]"} ${n}`)
          .join("\n"),
      );
    if (name.endsWith("directory_tree"))
      return cap(JSON.stringify(tree(path, new Set(args.excludePatterns as string[])), null, 2));
    if (name.endsWith("read_text_file")) {
      const text = files[path] ?? "";
      return cap(args.head ? text.split("\n").slice(0, Number(args.head)).join("\n") : text);
    }
    return "thought recorded";
  };
}

/** Drive the strategy the way the tool loop does, for `maxRounds` tool rounds, then the final call. */
function run(files: Record<string, string>, maxRounds = 3) {
  const answer = memoryFolder(files);
  const messages: BaseMessage[] = [new HumanMessage(`Document ${ROOT}`)];
  const rounds: string[][] = [];
  let id = 0;
  for (let round = 0; round < maxRounds; round++) {
    const reply = strategy({ messages, tools, callIndex: round });
    if (typeof reply === "string") return { document: reply, rounds, messages };
    if (!("toolCalls" in reply)) throw new Error("unexpected reply");
    const calls = reply.toolCalls.map((c) => ({ ...c, id: `c${++id}`, type: "tool_call" as const }));
    messages.push(new AIMessage({ content: reply.content ?? "", tool_calls: calls }));
    for (const call of calls)
      messages.push(
        new ToolMessage({ content: answer(call.name, call.args), tool_call_id: call.id, name: call.name }),
      );
    rounds.push(
      calls.map((c) => `${c.name.split("__")[1]} ${String(c.args.path).slice(ROOT.length + 1) || "."}`),
    );
  }
  const final = strategy({ messages, tools: [], callIndex: maxRounds });
  return { document: final as string, rounds, messages };
}

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
  it("first surveys the folder with every granted survey tool, dependency folders excluded from the tree", () => {
    const first = strategy({ messages: [new HumanMessage("Document /w/proj")], tools, callIndex: 0 });
    if (typeof first !== "object" || !("toolCalls" in first)) throw new Error("expected tool calls");
    expect(first.toolCalls.map((c) => c.name)).toEqual([
      "filesystem__list_directory",
      "filesystem__directory_tree",
      "sequential-thinking__sequentialthinking",
    ]);
    expect(first.toolCalls[1]?.args.excludePatterns).toEqual(
      expect.arrayContaining(["node_modules", ".git", ".venv", "target", "dist"]),
    );
  });

  it("then reads several key files in one round, by priority", () => {
    const tree = JSON.stringify([
      { name: "README.md", type: "file" },
      { name: "package.json", type: "file" },
      { name: "logo.png", type: "file" },
      { name: "src", type: "directory", children: [{ name: "index.ts", type: "file" }] },
    ]);
    const next = strategy({
      messages: [new HumanMessage("go"), ...reply("1", "filesystem__directory_tree", { path: ROOT }, tree)],
      tools,
      callIndex: 1,
    });
    if (typeof next !== "object" || !("toolCalls" in next)) throw new Error("expected tool calls");
    expect(next.toolCalls.map((c) => c.args.path)).toEqual([
      "/w/proj/README.md",
      "/w/proj/package.json",
      "/w/proj/src/index.ts",
    ]);
  });

  it("documents a small project from what came back: purpose, every file, key files, commands with sources", () => {
    const { document, rounds } = run({
      "README.md": "# harbour\nPrints harbour tides.\nRun it with `python3 src/app/main.py`.\n",
      "src/app/main.py": '"""Entry point."""\n\ndef main():\n    pass\n',
      "tools/fetch.sh": "#!/bin/sh\n# Fetches the tide table.\ncurl x\n",
      Makefile: "test:\n\tpytest\n",
      "uv.lock": "version = 1\n",
    });
    expect(rounds).toHaveLength(2);
    expect(rounds[1]).toEqual([
      "read_text_file README.md",
      "read_text_file Makefile",
      "read_text_file tools/fetch.sh",
      "read_text_file src/app/main.py",
    ]);
    expect(document).toBe(`# harbour

## Purpose

Prints harbour tides. Run it with \`python3 src/app/main.py\`.

## Layout

5 files in 3 folders:

\`\`\`text
src/
  app/
    main.py
tools/
  fetch.sh
Makefile
README.md
uv.lock
\`\`\`

## Key files

- \`README.md\` — harbour: Prints harbour tides.
- \`Makefile\` — targets \`test\`
- \`tools/fetch.sh\` — Fetches the tide table.
- \`src/app/main.py\` — Entry point. Defines \`main\`

## How to run

Package manager: uv (from \`uv.lock\`).

- \`uv sync\` — installs the dependencies (uv.lock)
- \`python3 src/app/main.py\` (README.md)
- \`make test\` (Makefile)
- \`sh tools/fetch.sh\` — Fetches the tide table. (tools/fetch.sh)

## At a glance

- 5 files: 1 × (none), 1 × lock, 1 × md, 1 × py, 1 × sh
- Written offline from 7 MCP tool calls: filesystem.list_directory, filesystem.directory_tree, sequential-thinking.sequentialthinking, filesystem.read_text_file
`);
  });

  it("writes the same document from the plain-text history of the loop's last, tools-less call", () => {
    const files = { "README.md": "# a\n\nDoes a thing.\n", "src/a.py": "def a():\n    pass\n" };
    const { document, messages } = run(files, 2);
    // The loop's final call rewrites tool turns as text; the strategy must still read them.
    const text: BaseMessage[] = [];
    let results: string[] = [];
    for (const message of messages) {
      if (message instanceof ToolMessage) {
        results.push(`[Tool result for call ${message.tool_call_id} (${message.name})]\n${message.content}`);
        continue;
      }
      if (results.length > 0) text.push(new HumanMessage(results.join("\n\n")));
      results = [];
      if (message instanceof AIMessage && message.tool_calls?.length)
        text.push(
          new AIMessage(
            message.tool_calls
              .map((c) => `[Called tool ${c.name} (call ${c.id}) with arguments ${JSON.stringify(c.args)}]`)
              .join("\n"),
          ),
        );
      else text.push(message);
    }
    text.push(
      new HumanMessage(
        `${results.join("\n\n")}\n\n(The tool budget is used up: no more tool calls are possible. Answer with what you have.)`,
      ),
    );
    expect(strategy({ messages: text, tools: [], callIndex: 3 })).toBe(document);
    expect(document).toContain("Does a thing.");
  });

  it("stays within its budget on a large tree: calls per round, calls, reply characters, files read", () => {
    const files: Record<string, string> = { "README.md": "# big\n\nA big monorepo.\n", "pnpm-lock.yaml": "" };
    for (const top of ["apps", "packages", "tooling"])
      for (let p = 0; p < 6; p++)
        for (let f = 0; f < 40; f++) files[`${top}/p${p}/src/file-${f}.ts`] = `export const v${f} = ${f};\n`;
    for (let i = 0; i < 50; i++) files[`node_modules/dep-${i}/index.js`] = "";
    const { document, rounds, messages } = run(files, 6);
    const calls = rounds.flat();
    expect(Math.max(...rounds.map((r) => r.length))).toBeLessThanOrEqual(OFFLINE_BUDGET.callsPerRound);
    expect(calls.length).toBeLessThanOrEqual(OFFLINE_BUDGET.maxCalls);
    expect(calls.filter((c) => c.startsWith("read_text_file")).length).toBeLessThanOrEqual(
      OFFLINE_BUDGET.maxFilesRead,
    );
    const chars = messages
      .filter((m) => m instanceof ToolMessage)
      .reduce((n, m) => n + String(m.content).length, 0);
    expect(chars).toBeLessThanOrEqual(OFFLINE_BUDGET.maxReplyChars);
    expect(calls).not.toContain("directory_tree node_modules");
    expect(calls).toContain("list_directory node_modules");
    // Every top-level folder is named, folders first, with at least what was seen.
    const layout = document.slice(document.indexOf("## Layout"), document.indexOf("## Key files"));
    for (const top of ["apps/", "packages/", "tooling/"]) expect(layout).toContain(top);
    expect(layout.indexOf("tooling/")).toBeLessThan(layout.indexOf("README.md"));
    expect(layout).toMatch(/At least \d+ files/);
    expect(layout).toContain("`node_modules/` (50 entries)");
    expect(document).toContain("`pnpm install`");
  });

  it("a tree one reply cannot hold but the folders' own trees can: every file, nothing marked 'at least'", () => {
    const files: Record<string, string> = { "README.md": "# mid\n\nA medium project.\n" };
    for (const top of ["alpha", "beta", "gamma"])
      for (let f = 0; f < 50; f++) files[`${top}/file-${f}.txt`] = "x\n";
    const { document, rounds } = run(files);
    expect(rounds[1]).toContain("directory_tree gamma");
    expect(document).toContain("151 files in 3 folders:");
    expect(document).toContain("  file-49.txt");
    expect(document).not.toContain("at least");
  });

  it("a folder holding only node_modules: named and counted, never '0 files' or 'could not be listed'", () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 700; i++) files[`node_modules/package-${i}/index.js`] = "";
    const { document } = run(files);
    expect(document).toMatch(/`node_modules\/` \(about [\d,]+ entries\)/);
    expect(document).not.toMatch(/\b0 files|could not be listed/);
  });

  it("a nested manifest's description is named by its path, and the root's comes first", () => {
    const nested = run({
      "ollama/package.json": '{"name":"@l/ollama","description":"Ollama for LangChain."}',
    });
    expect(nested.document).toContain("Ollama for LangChain. (from `ollama/package.json`)");
    const both = run({
      "package.json": '{"name":"root","description":"The root project."}',
      "a/package.json": '{"name":"a","description":"Package A."}',
    });
    expect(both.document).toContain("The root project. (from `package.json`)");
  });

  it("reports reads that failed, and writes with what it has when called without tools", () => {
    const messages = [
      new HumanMessage("go"),
      ...reply("1", "filesystem__list_directory", { path: ROOT }, "[FILE] README.md"),
      ...reply(
        "2",
        "filesystem__read_text_file",
        { path: `${ROOT}/README.md` },
        "Error (TOOL_ERROR): Access denied",
        "error",
      ),
    ];
    const doc = strategy({ messages, tools, callIndex: 2 });
    expect(doc).toContain("- `README.md` — could not be read (Error (TOOL_ERROR): Access denied)");
    expect(strategy({ messages: [new HumanMessage("go")], tools: [], callIndex: 0 })).toMatch(
      /^# proj\n[\s\S]*could not be listed/,
    );
  });

  it("a published package whose code is all in dist/: dist/ walked, its typed entry point read and first", () => {
    const { document, rounds } = run({
      "README.md": "# tide\n\n`tide` is a library for tide tables.\n\n```sh\nnpm install tide\n```\n",
      "package.json": JSON.stringify({
        name: "tide",
        description: "Tide tables",
        main: "./dist/index.js",
        types: "./dist/index.d.ts",
      }),
      "dist/index.js": "export { predict } from './predict.js';\n",
      "dist/index.d.ts": "export declare function predict(harbour: string): number;\n",
      "dist/predict.js": "export function predict() {}\n",
    });
    expect(rounds[1]).toContain("directory_tree dist");
    expect(document).toContain("`tide` is a library for tide tables.");
    expect(document).not.toContain("\\`tide`");
    expect(document).not.toContain("named but not walked");
    const keys = document.slice(document.indexOf("## Key files"), document.indexOf("## How to run"));
    expect(
      keys
        .split("\n")
        .filter((l) => l.startsWith("- "))
        .map((l) => l.split(" — ")[0]),
    ).toEqual([
      "- `README.md`",
      "- `package.json`",
      "- `dist/index.js`",
      "- `dist/index.d.ts`",
      "- `dist/predict.js`",
    ]);
    expect(keys).toContain("`dist/index.d.ts` — exports `predict`");
  });

  it("title and purpose: a section heading and a sponsor block are not the project; the manifest is", () => {
    const { document } = run({
      "README.md":
        '<picture>\n  <img alt="logo" src="logo.svg">\n</picture>\n\n> Tides for humans\n\n<div align="center">\n  <a href="https://s.invalid">Sindre&#39;s work is supported by the community</a>\n</div>\n\nTide runs harbour predictions from scripts.\n\n## Features\n\n- fast\n',
      "package.json": '{"name": "tide", "description": "Tide tables for humans"}',
    });
    expect(document).toMatch(
      /^# tide\n\n## Purpose\n\nTide tables for humans\. Tide runs harbour predictions from scripts\.\n/,
    );
    // A tagline opening the README, then sections: the manifest's description says what it is.
    const tagline = run({
      "README.md": "# sign\n\n… so better sign this\n\n## Usage\n\nRun it before each release, always.\n",
      "package.json": '{"name": "sign", "description": "Signs release files with your key."}',
    }).document;
    expect(tagline).toContain("## Purpose\n\nSigns release files with your key. (from `package.json`)\n");
    // A heading that is not the package's name (a tagline of the crate) gives way to the name.
    const crate = run({
      "README.md": "derive(Error)\n=============\n\nThis library provides a derive macro for errors.\n",
      "Cargo.toml": '[package]\nname = "thiserror"\ndescription = "derive(Error)"\n',
      "src/lib.rs": "//! Derive macro.\n",
    }).document;
    expect(crate).toMatch(
      /^# thiserror\n\n## Purpose\n\nThis library provides a derive macro for errors\.\n/,
    );
  });

  it("an installed Python distribution: its PKG-INFO is the manifest and carries the README", () => {
    const { document } = run({
      "tide-1.0.egg-info/PKG-INFO":
        "Metadata-Version: 2.1\nName: tide\nVersion: 1.0\nSummary: Tide tables\n\n\\$ tide\\_\n========\n\nTide predicts the tides of a harbour.\n\n.. code-block:: text\n\n    $ pip install -U tide\n",
      "tide-1.0.egg-info/top_level.txt": "tide\n",
      "tide/__init__.py": '"""Tide tables."""\n',
      "tide/core.py": "def predict():\n    pass\n",
    });
    expect(document).toMatch(/^# tide\n\n## Purpose\n\nTide predicts the tides of a harbour\.\n/);
    expect(document).toContain("- `pip install -U tide` (tide-1.0.egg-info/PKG-INFO)");
    const keys = document.slice(document.indexOf("## Key files"), document.indexOf("## How to run"));
    expect(keys).not.toContain("top_level.txt");
    expect(keys.indexOf("`tide/__init__.py`")).toBeLessThan(keys.indexOf("`tide/core.py`"));
  });
});
