import { describe, expect, it } from "vitest";
import { MCPConfigError } from "./errors.js";
import { grantServerIssues } from "./grant-servers.js";
import { mcpConfigJsonSchema } from "./json-schema.js";
import { parseMCPConfig, parseMCPConfigObject } from "./parse-mcp-config.js";
import { stringifyMCPConfig } from "./stringify-mcp-config.js";

const servers = `servers:
  - name: github
    enabled: true
    transport: http
    url: https://example.invalid/mcp
  - name: docs
    enabled: true
    transport: stdio
    command: node
`;

function problems(text: string): Map<string, string> {
  try {
    parseMCPConfig(text, { source: "roster.yaml" });
  } catch (error) {
    expect(MCPConfigError.isInstance(error)).toBe(true);
    return new Map((error as MCPConfigError).issues.map((issue) => [issue.path, issue.message]));
  }
  throw new Error("parsed without error");
}

describe("confirm grants in the roster", () => {
  const text = `${servers}permissions:
  maintainer:
    allow: ["github.get_*"]
    deny: ["github.delete_repo"]
    confirm: ["github.merge_*", "github.delete_branch"]
    confirm_destructive: true
    resources: { allow: ["docs:file:///srv/*"], confirm: ["docs:file:///srv/private/*"] }
    prompts: { confirm: ["github.release_*"] }
  reader: ["docs.*"]
`;

  it("reads confirm lists and confirm_destructive into camelCase, on both parser paths", () => {
    const expected = {
      maintainer: {
        allow: ["github.get_*"],
        deny: ["github.delete_repo"],
        confirm: ["github.merge_*", "github.delete_branch"],
        confirmDestructive: true,
        resources: { allow: ["docs:file:///srv/*"], deny: [], confirm: ["docs:file:///srv/private/*"] },
        prompts: { allow: [], deny: [], confirm: ["github.release_*"] },
      },
      reader: { allow: ["docs.*"], deny: [] },
    };
    expect(parseMCPConfig(text).permissions).toEqual(expected);
    // The object path (a parsed document) gives the same result.
    const object = {
      servers: [
        { name: "github", enabled: true, transport: "http", url: "https://example.invalid/mcp" },
        { name: "docs", enabled: true, transport: "stdio", command: "node" },
      ],
      permissions: {
        maintainer: {
          allow: ["github.get_*"],
          deny: ["github.delete_repo"],
          confirm: ["github.merge_*", "github.delete_branch"],
          confirm_destructive: true,
          resources: { allow: ["docs:file:///srv/*"], confirm: ["docs:file:///srv/private/*"] },
          prompts: { confirm: ["github.release_*"] },
        },
        reader: ["docs.*"],
      },
    };
    expect(parseMCPConfigObject(object).permissions).toEqual(expected);
  });

  it("writes them back as the file spells them, and reads that back the same", () => {
    const config = parseMCPConfig(text);
    const written = stringifyMCPConfig(config);
    expect(written).toContain("confirm_destructive: true");
    expect(written).not.toContain("confirmDestructive");
    expect(parseMCPConfig(written).permissions).toEqual(config.permissions);
  });

  it("checks confirm patterns and confirm_destructive like every other field, with file positions", () => {
    const byPath = problems(`${servers}permissions:
  a:
    confirm: ["*"]
  b:
    confirm_destructive: "yes"
  c:
    resources: { confirm: [42] }
  e:
    confirms: ["github.merge"]
`);
    expect(byPath.get("permissions.a.confirm[0]")).toMatch(/every tool of every server/);
    expect(byPath.get("permissions.b.confirm_destructive")).toBe("expected true or false, got a string");
    expect(byPath.get("permissions.c.resources.confirm[0]")).toMatch(/string/);
    expect(byPath.get("permissions.e.confirms")).toMatch(
      /unknown key "confirms" \(did you mean "confirm"\?\)/,
    );
  });

  it("a confirm pattern naming a server the roster lacks is an error", () => {
    const byPath = problems(`${servers}permissions:\n  d:\n    confirm: ["githb.merge"]\n`);
    expect(byPath.get("permissions.d.confirm[0]")).toMatch(/names server "githb".*did you mean "github"/);
  });

  it("grantServerIssues checks confirm lists of grants written in code", () => {
    const issues = grantServerIssues(
      {
        ops: {
          allow: [],
          deny: [],
          confirm: ["gihub.merge"],
          prompts: { allow: [], deny: [], confirm: ["nope.x"] },
        },
      },
      ["github"],
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      "permissions.ops.confirm[0]",
      "permissions.ops.prompts.confirm[0]",
    ]);
  });

  it("the JSON Schema knows confirm and confirm_destructive", () => {
    const schema = JSON.stringify(mcpConfigJsonSchema());
    expect(schema).toContain('"confirm"');
    expect(schema).toContain('"confirm_destructive"');
  });
});
