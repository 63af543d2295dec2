// A governed LangChain agent: the filesystem server, a grant, the bounded tool loop. The model is
// LangChain's scripted fake here; pass any chat model that supports bindTools (ChatOpenAI, ...).
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMCPToolkit, MCP_TOOL_CALL_COMPLETED } from "@agentforge/agent-runtime";
import { invokeWithTools } from "@agentforge/agent-runtime/langchain";
import { serverCommand } from "@agentforge/example-servers";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";

const root = mkdtempSync(join(tmpdir(), "docs-"));
writeFileSync(join(root, "notes.md"), "# Notes\nShip on Friday.\n");

const toolkit = await createMCPToolkit({
  config: {
    servers: [{ name: "files", transport: "stdio", enabled: true, ...serverCommand("filesystem", { root }) }],
    permissions: { docs: ["files.read_text_file", "files.list_directory"] },
  },
});
try {
  toolkit.on(MCP_TOOL_CALL_COMPLETED, (e) =>
    console.log(`audit: ${e.agent} called ${e.identity} (${e.durationMs} ms)`),
  );

  const model = fakeModel()
    .respondWithTools([{ name: "files__read_text_file", args: { path: join(root, "notes.md") } }])
    .respond((messages) => {
      const read = String(messages.at(-1)?.content);
      return new AIMessage(read.includes("Friday") ? "We ship on Friday." : "I could not read the notes.");
    });

  const result = await invokeWithTools(model, [new HumanMessage("When do we ship?")], {
    tools: await toolkit.tools("docs"), // rejects if a granted server did not start
    executor: toolkit.executor,
    agent: "docs",
  });
  console.log(`answer: ${result.message.content}`);
  assert.equal(result.message.content, "We ship on Friday.");
  assert.deepEqual(
    result.calls.map((c) => [c.identity, c.ok]),
    [["files.read_text_file", true]],
  );
} finally {
  await toolkit.close();
}
