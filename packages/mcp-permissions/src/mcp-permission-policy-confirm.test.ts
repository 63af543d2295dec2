import { MCPConfigError, parseMCPConfig } from "@agentforge/mcp-config";
import { describe, expect, it } from "vitest";
import { annotationsNeedConfirmation, MCPPermissionPolicy } from "./mcp-permission-policy.js";
import { MCPToolRegistry } from "./mcp-tool-registry.js";

const policy = new MCPPermissionPolicy({
  maintainer: {
    allow: ["github.*"],
    deny: ["github.delete_repo", "github.merge_secret"],
    confirm: ["github.merge_*", "github.delete_repo", "docs.write"],
  },
  onlyConfirm: { confirm: ["github.merge_pull_request"] },
  careful: { allow: ["github.*"], confirmDestructive: true },
  resources: {
    resources: { allow: ["docs:file:///srv/*"], confirm: ["docs:file:///srv/private/*"] },
    prompts: { allow: ["docs.*"], deny: ["docs.secret"], confirm: ["docs.release_*", "docs.secret"] },
  },
});

describe("confirm patterns: deny > confirm > allow", () => {
  it.each([
    // agent, identity, allowed, basis, confirmation, matched
    ["maintainer", "github.get_issue", true, "allow", undefined, "github.*"],
    ["maintainer", "github.merge_pull_request", true, "confirm", "pattern", "github.merge_*"],
    ["maintainer", "github.delete_repo", false, "deny", undefined, "github.delete_repo"],
    ["maintainer", "github.merge_secret", false, "deny", undefined, "github.merge_secret"],
    // A confirm pattern grants on its own.
    ["maintainer", "docs.write", true, "confirm", "pattern", "docs.write"],
    ["onlyConfirm", "github.merge_pull_request", true, "confirm", "pattern", "github.merge_pull_request"],
    ["onlyConfirm", "github.get_issue", false, "no-match", undefined, undefined],
  ] as const)("%s calling %s: allowed %s (%s)", (agent, identity, allowed, basis, confirmation, matched) => {
    const decision = policy.decide(agent, identity);
    expect(decision.allowed).toBe(allowed);
    expect(decision.basis).toBe(basis);
    expect(decision.confirmation).toBe(confirmation);
    expect(decision.matchedPattern).toBe(matched);
    if (confirmation) expect(decision.reason).toMatch(/after confirmation/);
  });

  it("confirm-only grants are grants: the agent is not 'no-grants', and allowedTools lists the tools", () => {
    expect(policy.decide("onlyConfirm", "github.get_issue").basis).toBe("no-match");
    expect(
      policy
        .allowedTools("onlyConfirm", [{ identity: "github.merge_pull_request" }, { identity: "github.x" }])
        .map((t) => t.identity),
    ).toEqual(["github.merge_pull_request"]);
  });

  it("resources and prompts have confirm lists with the same precedence", () => {
    expect(policy.decideResource("resources", "docs", "file:///srv/a.md").confirmation).toBeUndefined();
    const secret = policy.decideResource("resources", "docs", "file:///srv/private/k.md");
    expect([secret.allowed, secret.basis, secret.confirmation]).toEqual([true, "confirm", "pattern"]);
    expect(policy.decidePrompt("resources", "docs", "release_notes").confirmation).toBe("pattern");
    expect(policy.decidePrompt("resources", "docs", "secret").basis).toBe("deny");
    expect(policy.decidePrompt("resources", "docs", "summary").confirmation).toBeUndefined();
  });

  it("toJSON keeps confirm lists and confirmDestructive, and a policy built from it decides the same", () => {
    const json = policy.toJSON();
    expect(json.maintainer?.confirm).toEqual(["github.merge_*", "github.delete_repo", "docs.write"]);
    expect(json.careful?.confirmDestructive).toBe(true);
    expect(json.resources?.prompts?.confirm).toEqual(["docs.release_*", "docs.secret"]);
    const again = new MCPPermissionPolicy(json);
    for (const identity of ["github.merge_x", "github.delete_repo", "docs.write", "github.get_x"]) {
      expect(again.decide("maintainer", identity)).toEqual(policy.decide("maintainer", identity));
    }
  });

  it("refuses malformed confirm lists and confirmDestructive, naming each path", () => {
    let error: unknown;
    try {
      new MCPPermissionPolicy({
        a: { confirm: ["*"] },
        b: { confirm: "github.x" as unknown as string[] },
        c: { confirmDestructive: "yes" as unknown as boolean },
        d: { prompts: { confirm: ["nodot"] } },
      });
    } catch (caught) {
      error = caught;
    }
    expect(MCPConfigError.isInstance(error)).toBe(true);
    expect((error as MCPConfigError).issues.map((issue) => issue.path)).toEqual([
      "a.confirm[0]",
      "b.confirm",
      "c.confirmDestructive",
      "d.prompts.confirm[0]",
    ]);
  });

  it("fromConfig reads confirm and confirm_destructive from a roster", () => {
    const config = parseMCPConfig(`servers:
  - { name: github, enabled: true, transport: http, url: "https://example.invalid/mcp" }
permissions:
  ops:
    allow: ["github.*"]
    confirm: ["github.merge_*"]
    confirm_destructive: true
`);
    const fromFile = MCPPermissionPolicy.fromConfig(config);
    expect(fromFile.decide("ops", "github.merge_x").confirmation).toBe("pattern");
    expect(fromFile.decide("ops", "github.get_x", { annotations: { readOnlyHint: true } }).confirmation).toBe(
      undefined,
    );
    expect(fromFile.decide("ops", "github.get_x", { annotations: {} }).confirmation).toBe("annotations");
  });
});

describe("confirmDestructive: annotations only ever add confirmation", () => {
  it.each([
    // annotations, needs confirmation
    [undefined, true],
    [null, true],
    ["readOnly", true],
    [[], true],
    [{}, true],
    [{ readOnlyHint: true }, false],
    [{ readOnlyHint: "true" }, true],
    [{ readOnlyHint: 1 }, true],
    [{ readOnlyHint: true, destructiveHint: true }, true],
    [{ readOnlyHint: false }, true],
    [{ readOnlyHint: false, destructiveHint: true }, true],
    [{ readOnlyHint: false, destructiveHint: false }, false],
    [{ destructiveHint: false }, true],
    [{ destructiveHint: true }, true],
  ])("annotations %j: confirmation %s", (annotations, needed) => {
    expect(annotationsNeedConfirmation(annotations)).toBe(needed);
    const decision = policy.decide("careful", "github.get_x", { annotations });
    expect(decision.allowed).toBe(true);
    expect(decision.confirmation).toBe(needed ? "annotations" : undefined);
  });

  it("never removes a pattern's confirmation, and never grants", () => {
    const both = new MCPPermissionPolicy({
      a: { confirm: ["github.merge_x"], confirmDestructive: true },
    });
    const readOnly = { annotations: { readOnlyHint: true } };
    expect(both.decide("a", "github.merge_x", readOnly).confirmation).toBe("pattern");
    expect(both.decide("a", "github.other", readOnly).allowed).toBe(false);
    // Without confirmDestructive, annotations change nothing.
    expect(policy.decide("maintainer", "github.get_x", { annotations: {} }).confirmation).toBeUndefined();
  });

  it("without the tool's annotations, the registry's are used; with neither, the tool needs confirmation", () => {
    const registry = new MCPToolRegistry();
    registry.register("github", [
      {
        identity: "github.get_x",
        serverName: "github",
        toolName: "get_x",
        inputSchema: { type: "object" },
        annotations: { readOnlyHint: true },
      },
    ]);
    const withRegistry = new MCPPermissionPolicy(
      { a: { allow: ["github.*"], confirmDestructive: true } },
      { registry },
    );
    expect(withRegistry.decide("a", "github.get_x").confirmation).toBeUndefined();
    expect(withRegistry.decide("a", "github.unknown").confirmation).toBe("annotations");
    expect(policy.decide("careful", "github.get_x").confirmation).toBe("annotations");
  });
});
