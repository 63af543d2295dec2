// A person confirms calls before they are made: `confirm` grants beside `allow`, and a `confirm` handler
// that is shown each request (identity, title, a safe preview of the arguments) and answers allow or
// deny. Here the "person" is a rule, so the example runs unattended; at a terminal, ask with readline.
import assert from "node:assert/strict";
import {
  createMCPToolkit,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
  MCPConfirmationError,
  type MCPConfirmationRequest,
} from "@agentforge/agent-runtime";
import { serverCommand } from "@agentforge/example-servers";

const shown: MCPConfirmationRequest[] = [];
const toolkit = await createMCPToolkit({
  config: {
    servers: [{ name: "local", transport: "stdio", enabled: true, ...serverCommand("local-tools") }],
    permissions: { helper: { allow: ["local.current_time"], confirm: ["local.echo"] } },
  },
  confirm: (request) => {
    shown.push(request);
    console.log(
      `${request.agent} wants ${request.identity} (${request.title}) with ${request.argumentsPreview}`,
    );
    const safe = !request.argumentsPreview.includes("\\u001b");
    return safe ? { decision: "allow", answeredBy: "rule" } : { decision: "deny", reason: "no escapes" };
  },
});
try {
  toolkit.on(MCP_TOOL_CALL_CONFIRMATION_RESOLVED, (e) =>
    console.log(`audit: ${e.identity} ${e.decision} by ${e.answeredBy ?? e.source} after ${e.waitedMs} ms`),
  );
  const echoed = await toolkit.execute("helper", "local.echo", { text: "hello" });
  console.log(`echo: ${echoed.text}`);
  // The preview shows the escape as text: it never reaches the terminal as one.
  await assert.rejects(
    toolkit.execute("helper", "local.echo", { text: "\u001b[2J wiped" }),
    (error) => MCPConfirmationError.isInstance(error) && error.code === "CONFIRMATION_DENIED",
  );
  assert.equal(shown.length, 2);
  // A tool granted by allow needs no one.
  await toolkit.execute("helper", "local.current_time", {});
  assert.equal(shown.length, 2);
} finally {
  await toolkit.close();
}
