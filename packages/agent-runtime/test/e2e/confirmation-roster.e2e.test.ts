// Confirmation from a roster file: `confirm` patterns and `confirm_destructive`, with the first-party
// local-tools server (its tools say readOnlyHint: true) and a test server whose tools say nothing.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { STDIO_TEST_SERVER } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import type { MCPConfirmationRequest } from "../../src/index.js";
import { createMCPToolkit } from "../../src/node/index.js";
import { cleanup, onCleanup, tempDir } from "./harness.js";

afterEach(cleanup);

const SECRET = "roster-secret-Value-8812";

describe("confirm grants from a roster file", () => {
  it("asks for confirm patterns and, under confirm_destructive, for tools not said to be read-only", async () => {
    const localTools = createRequire(import.meta.url)
      .resolve("@agentforge/example-servers/package.json")
      .replace("package.json", "dist/bin/local-tools.js");
    const file = join(tempDir(), "mcp_servers.yaml");
    writeFileSync(
      file,
      [
        "servers:",
        "  - name: local",
        "    transport: stdio",
        "    enabled: true",
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(localTools)}]`,
        "    connection_timeout: 120",
        "  - name: alpha",
        "    transport: stdio",
        "    enabled: true",
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(STDIO_TEST_SERVER)}]`,
        "    env: { API_KEY: CONFIRM_TEST_SECRET }",
        "    connection_timeout: 120",
        "permissions:",
        "  ops:",
        "    allow: [local.*, alpha.echo, alpha.add]",
        "    deny: [alpha.add]",
        "    confirm: [local.word_count, alpha.add]",
        "    confirm_destructive: true",
        "  typo:",
        "    confirm: [local.word_cont]",
        "",
      ].join("\n"),
    );
    const requests: MCPConfirmationRequest[] = [];
    const toolkit = await createMCPToolkit({
      config: file,
      discover: "eager",
      env: { ...process.env, CONFIRM_TEST_SECRET: SECRET },
      confirm: (request) => {
        requests.push(request);
        return { decision: "allow" };
      },
    });
    onCleanup(() => toolkit.close());
    // local.echo says readOnlyHint: true: no confirmation.
    expect((await toolkit.execute("ops", "local.echo", { text: "hi" })).text).toContain("hi");
    expect(requests).toEqual([]);
    // A confirm pattern: asked, whatever the annotations say. The preview never shows a secret of the
    // roster, even one another server reads.
    await toolkit.execute("ops", "local.word_count", { text: `one two ${SECRET}` });
    expect(requests.map((r) => [r.identity, r.basis])).toEqual([["local.word_count", "pattern"]]);
    expect(requests[0]?.annotations).toMatchObject({ readOnlyHint: true });
    expect(requests[0]?.argumentsPreview).not.toContain(SECRET);
    expect(requests[0]?.argumentsPreview).toContain("[REDACTED]");
    // The test server's tools say nothing of readOnlyHint: asked under confirm_destructive.
    await toolkit.execute("ops", "alpha.echo", { text: "x" });
    expect(requests.map((r) => [r.identity, r.basis])).toEqual([
      ["local.word_count", "pattern"],
      ["alpha.echo", "annotations"],
    ]);
    // Deny wins over confirm: nobody is asked.
    await expect(toolkit.execute("ops", "alpha.add", { a: 1, b: 2 })).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
    expect(requests).toHaveLength(2);
    // A confirm pattern that matches no tool is reported like an allow pattern.
    expect(toolkit.checkGrants("typo")).toMatchObject([
      { code: "GRANT_MATCHES_NO_TOOL", pattern: "local.word_cont", suggestion: "local.word_count" },
    ]);
  });
});
