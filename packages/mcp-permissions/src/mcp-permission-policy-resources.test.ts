import { canonicalResourceUri, MCPConfigError, parseMCPConfig } from "@agentforge/mcp-config";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MCPPermissionPolicy } from "./mcp-permission-policy.js";

const policy = new MCPPermissionPolicy({
  documentation: {
    allow: ["docs.*"],
    resources: ["docs:file:///srv/docs/*", "memory:memory://notes/*", "docs:urn:isbn:123"],
    prompts: ["github.review_*", "docs.summarize"],
  },
  reviewer: {
    allow: ["github.*"],
    resources: { allow: ["docs:*"], deny: ["docs:file:///srv/docs/private/*"] },
    prompts: { allow: ["github.*"], deny: ["github.delete_*"] },
  },
  "tools-only": ["docs.*", "github.*"],
  "empty-resources": { allow: ["docs.*"], resources: [], prompts: { deny: ["github.*"] } },
});

describe("decideResource", () => {
  it.each([
    // agent, server, uri, allowed, basis, matched
    ["documentation", "docs", "file:///srv/docs/readme.md", true, "allow", "docs:file:///srv/docs/*"],
    ["documentation", "docs", "file:///srv/docs/a/b/c.md", true, "allow", "docs:file:///srv/docs/*"],
    ["documentation", "docs", "file:///srv/docs/", true, "allow", "docs:file:///srv/docs/*"],
    ["documentation", "docs", "urn:isbn:123", true, "allow", "docs:urn:isbn:123"],
    ["documentation", "docs", "urn:isbn:1234", false, "no-match", undefined],
    ["documentation", "docs", "file:///srv/docsecret/a", false, "no-match", undefined],
    ["documentation", "docs", "file:///srv/other/a.md", false, "no-match", undefined],
    ["documentation", "docs", "FILE:///srv/docs/a.md", true, "allow", "docs:file:///srv/docs/*"],
    ["documentation", "memory", "memory://notes/1", true, "allow", "memory:memory://notes/*"],
    ["documentation", "memory", "memory://other/1", false, "no-match", undefined],
    // a pattern of one server never grants another server the same URI
    ["documentation", "docs2", "file:///srv/docs/readme.md", false, "no-match", undefined],
    ["documentation", "memory", "file:///srv/docs/readme.md", false, "no-match", undefined],
    ["reviewer", "docs", "anything:at-all", true, "allow", "docs:*"],
    [
      "reviewer",
      "docs",
      "file:///srv/docs/private/key.pem",
      false,
      "deny",
      "docs:file:///srv/docs/private/*",
    ],
    ["reviewer", "memory", "memory://notes/1", false, "no-match", undefined],
    // deny by default: tool grants give no resources; an empty list gives none
    ["tools-only", "docs", "file:///srv/docs/readme.md", false, "no-grants", undefined],
    ["empty-resources", "docs", "file:///srv/docs/readme.md", false, "no-grants", undefined],
    ["nobody", "docs", "file:///srv/docs/readme.md", false, "no-grants", undefined],
    ["__proto__", "docs", "file:///srv/docs/readme.md", false, "no-grants", undefined],
    // malformed server names
    ["documentation", "Docs", "file:///srv/docs/readme.md", false, "invalid-identity", undefined],
    ["documentation", "", "file:///srv/docs/readme.md", false, "invalid-identity", undefined],
    ["documentation", "docs:file", "///srv/docs/readme.md", false, "invalid-identity", undefined],
  ] as const)("%s %s %s → %s (%s)", (agent, server, uri, allowed, basis, matched) => {
    const decision = policy.decideResource(agent, server, uri);
    expect(decision).toMatchObject({ allowed, basis });
    expect(decision.matchedPattern).toBe(matched);
    expect(decision.reason.length).toBeGreaterThan(10);
  });

  // Hostile URIs: anything a server could decode or resolve into another path is refused, even though
  // the string would match `file:///srv/docs/*`.
  it.each([
    ["dot-dot", "file:///srv/docs/../../etc/passwd", /"\.\." segment/],
    ["trailing dot-dot", "file:///srv/docs/..", /"\.\." segment/],
    ["backslash dot-dot", "file:///srv/docs/..\\..\\etc\\passwd", /backslash/],
    ["encoded dots", "file:///srv/docs/%2e%2e/%2e%2e/etc/passwd", /"\.\." segment/],
    ["encoded dots, upper case", "file:///srv/docs/%2E%2E/secret", /"\.\." segment/],
    ["mixed", "file:///srv/docs/.%2e/secret", /"\.\." segment/],
    ["empty segment", "file:///srv/docs//../secret", /empty path segment|"\.\." segment/],
    ["stray percent", "file:///srv/docs/a%G1", /'%' that does not start/],
    ["encoded slash", "file:///srv/docs/..%2f..%2fetc", /percent-encoded/],
    ["double encoding", "file:///srv/docs/%252e%252e/secret", /percent-encoded/],
    ["encoded NUL", "file:///srv/docs/a.md%00.png", /percent-encoded/],
    ["NUL", "file:///srv/docs/a.md\u0000.png", /control character/],
    ["newline (log forging)", "file:///srv/docs/a.md\nallowed by pattern", /control character/],
    ["escape sequence", "file:///srv/docs/\u001b[2Ja.md", /control character/],
    ["C1 control", "file:///srv/docs/a\u0085.md", /control character/],
    ["space", "file:///srv/docs/a b.md", /whitespace/],
    ["no scheme", "/srv/docs/a.md", /no URI scheme/],
    ["empty", "", /is empty/],
    ["very long", `file:///srv/docs/${"a".repeat(10_000)}`, /over the limit of 8192/],
  ])("refuses %s", (_name, uri, problem) => {
    const decision = policy.decideResource("reviewer", "docs", uri);
    expect(decision).toMatchObject({ allowed: false, basis: "invalid-identity" });
    expect(decision.reason).toMatch(problem);
    expect(decision.reason).toMatch(/a server could read it as another resource/);
    // the reason is safe to log: no raw control character, and bounded
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking their absence.
    expect(decision.reason).not.toMatch(/[\u0000-\u001f\u0085]/);
    expect(decision.reason.length).toBeLessThan(400);
  });

  it("keeps legitimate percent-encoding and dots inside names", () => {
    for (const uri of [
      "file:///srv/docs/My%20File.md",
      "file:///srv/docs/a..b.md",
      "file:///srv/docs/.hidden",
    ]) {
      expect(policy.isAuthorized("documentation", "docs.x")).toBe(true);
      expect(policy.decideResource("documentation", "docs", uri).allowed).toBe(true);
    }
  });

  it("never throws on values of the wrong type", () => {
    const p = policy as unknown as {
      decideResource(a: unknown, s: unknown, u: unknown): { allowed: boolean };
    };
    for (const [agent, server, uri] of [
      [undefined, "docs", "file:///srv/docs/a"],
      ["documentation", 5, "file:///srv/docs/a"],
      ["documentation", "docs", null],
      ["documentation", "docs", { toString: () => "file:///srv/docs/a" }],
    ]) {
      expect(p.decideResource(agent, server, uri).allowed).toBe(false);
    }
  });

  it("matches long URIs against many stars without blowing up", () => {
    const stars = new MCPPermissionPolicy({ a: { resources: [`docs:${"*a".repeat(40)}*b`] } });
    const uri = `x:${"a".repeat(8000)}`;
    expect(stars.decideResource("a", "docs", uri)).toMatchObject({ allowed: false, basis: "no-match" });
    expect(stars.decideResource("a", "docs", `${uri}b`)).toMatchObject({ allowed: true, basis: "allow" });
  });

  it("agrees with a regular-expression reference on random URIs and patterns", () => {
    const piece = fc.stringMatching(/^[a-z0-9/:._-]{0,6}$/);
    const glob = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => `x:${parts.join("*")}`);
    const uri = fc.stringMatching(/^[a-z0-9/:._-]{0,24}$/).map((rest) => `x:${rest}`);
    const reference = (pattern: string, value: string) =>
      new RegExp(
        `^${pattern
          .split("*")
          .map((p) => p.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&"))
          .join(".*")}$`,
        "s",
      ).test(value);
    fc.assert(
      fc.property(glob, uri, (pattern, value) => {
        const canonicalValue = canonicalResourceUri(value).uri;
        const canonicalPattern = canonicalResourceUri(pattern, { allowStar: true }).uri;
        fc.pre(canonicalValue !== undefined && canonicalPattern !== undefined);
        const p = new MCPPermissionPolicy({ a: { resources: [`docs:${pattern}`] } });
        expect(p.decideResource("a", "docs", value).allowed).toBe(
          reference(canonicalPattern as string, canonicalValue as string),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("never allows a URI with a .. segment, whatever the grant", () => {
    const segment = fc.stringMatching(/^[a-z0-9._%-]{0,5}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 4 }),
        fc.array(segment, { maxLength: 4 }),
        (before, after) => {
          const uri = `file:///${[...before, "..", ...after].join("/")}`;
          const p = new MCPPermissionPolicy({ a: { resources: ["docs:*", "docs:file:///*"] } });
          expect(p.decideResource("a", "docs", uri).allowed).toBe(false);
        },
      ),
    );
  });
});

describe("decidePrompt", () => {
  it.each([
    ["documentation", "github", "review_code", true, "allow", "github.review_*"],
    ["documentation", "docs", "summarize", true, "allow", "docs.summarize"],
    ["documentation", "docs", "summarize_all", false, "no-match", undefined],
    ["documentation", "github", "delete_repo", false, "no-match", undefined],
    ["reviewer", "github", "anything", true, "allow", "github.*"],
    ["reviewer", "github", "delete_repo", false, "deny", "github.delete_*"],
    ["reviewer", "docs", "summarize", false, "no-match", undefined],
    // tool grants give no prompts; deny-only or empty gives none
    ["tools-only", "github", "review_code", false, "no-grants", undefined],
    ["empty-resources", "github", "review_code", false, "no-grants", undefined],
    ["nobody", "github", "review_code", false, "no-grants", undefined],
    ["documentation", "GitHub", "review_code", false, "invalid-identity", undefined],
    ["documentation", "github", "review code", false, "invalid-identity", undefined],
    ["documentation", "github", "review_\u200bcode", false, "invalid-identity", undefined],
    ["documentation", "github", "", false, "invalid-identity", undefined],
    ["documentation", "github", "x".repeat(129), false, "invalid-identity", undefined],
  ] as const)("%s %s.%s → %s (%s)", (agent, server, prompt, allowed, basis, matched) => {
    const decision = policy.decidePrompt(agent, server, prompt);
    expect(decision).toMatchObject({ allowed, basis });
    expect(decision.matchedPattern).toBe(matched);
  });

  it("explains itself", () => {
    expect(policy.decidePrompt("tools-only", "github", "x").reason).toBe(
      'agent "tools-only" has no prompt grants (deny by default)',
    );
    expect(policy.decidePrompt("documentation", "github", "x").reason).toBe(
      'no prompt pattern granted to agent "documentation" matches "github.x"',
    );
  });

  it("tool grants and prompt grants never stand in for each other", () => {
    expect(policy.decide("documentation", "github.review_code").allowed).toBe(false);
    expect(policy.decidePrompt("documentation", "docs", "read_file").allowed).toBe(false);
    expect(policy.decide("documentation", "docs.read_file").allowed).toBe(true);
  });
});

describe("resource and prompt grants: construction", () => {
  it("names agent, field and bad pattern for each bad grant", () => {
    let error: unknown;
    try {
      new MCPPermissionPolicy({
        a: { resources: ["*:*", "docs:/no/scheme"], prompts: ["*"] },
        b: { resources: { allow: ["docs:*"], deny: ["docs"] }, prompts: "github.*" as unknown as string[] },
        c: { resources: { allow: "docs:*" as unknown as string[] } },
      });
    } catch (e) {
      error = e;
    }
    if (!MCPConfigError.isInstance(error)) throw new Error("expected MCPConfigError");
    expect(error.issues).toEqual([
      {
        path: "a.resources[0]",
        message:
          '"*:*" would grant resources of every server; name the server: "<server>:<uri-pattern>" (e.g. "docs:file:///srv/docs/*")',
      },
      {
        path: "a.resources[1]",
        message:
          'the URI part of "docs:/no/scheme" must start with a URI scheme (e.g. "file:///srv/docs/*") or with "*"',
      },
      {
        path: "a.prompts[0]",
        message: '"*" would grant every prompt of every server; list each server instead (e.g. "github.*")',
      },
      {
        path: "b.resources.deny[0]",
        message: 'expected "<server>:<uri-pattern>" (e.g. "docs:file:///srv/docs/*" or "docs:*"), got "docs"',
      },
      { path: "b.prompts", message: "expected a list of patterns, or { allow, deny } lists of patterns" },
      { path: "c.resources.allow", message: "expected a list of patterns" },
    ]);
    expect(error.message).toContain("a.resources[0]");
  });

  it("builds from a config file, and toJSON gives the lists back", () => {
    const config = parseMCPConfig(
      [
        "servers:",
        "  - { name: docs, transport: stdio, command: docs-server }",
        "  - { name: github, transport: stdio, command: github-server }",
        "permissions:",
        "  documentation:",
        "    allow: [docs.*]",
        '    resources: ["docs:file:///srv/docs/*"]',
        "    prompts: { allow: [github.*], deny: [github.delete_*] }",
        "  tools-only: [docs.*]",
        "",
      ].join("\n"),
    );
    const fromFile = MCPPermissionPolicy.fromConfig(config);
    expect(fromFile.decideResource("documentation", "docs", "file:///srv/docs/a.md").allowed).toBe(true);
    expect(fromFile.decidePrompt("documentation", "github", "delete_repo").basis).toBe("deny");
    expect(fromFile.decideResource("tools-only", "docs", "file:///srv/docs/a.md").basis).toBe("no-grants");
    expect(fromFile.toJSON()).toEqual({
      documentation: {
        allow: ["docs.*"],
        deny: [],
        resources: { allow: ["docs:file:///srv/docs/*"], deny: [] },
        prompts: { allow: ["github.*"], deny: ["github.delete_*"] },
      },
      "tools-only": { allow: ["docs.*"], deny: [] },
    });
    expect(new MCPPermissionPolicy(fromFile.toJSON()).toJSON()).toEqual(fromFile.toJSON());
  });
});

// A deny pattern holds against every spelling a lenient server reads as the denied resource
// (hostile-input issue, item 2): the decision is made on the canonical URI, deny patterns fold case
// and ignore the query, and the spelling to send is the canonical one.
describe("deny patterns against respelled URIs and prompt names", () => {
  const respelled = new MCPPermissionPolicy({
    reader: {
      allow: ["srv.*"],
      resources: { allow: ["srv:file:///docs/*"], deny: ["srv:file:///docs/secret.txt"] },
      prompts: { allow: ["srv.*"], deny: ["srv.secret_prompt"] },
    },
  });

  it.each([
    ["scheme case", "FILE:///docs/secret.txt"],
    ["an escaped letter", "file:///docs/%73ecret.txt"],
    ["an escaped letter, lower-case hex", "file:///docs/secret.tx%74"],
    ["a dot segment", "file:///docs/./secret.txt"],
    ["an escaped dot segment", "file:///docs/%2e/secret.txt"],
    ["file://localhost", "file://localhost/docs/secret.txt"],
    ["file://LOCALHOST", "file://LOCALHOST/docs/secret.txt"],
    ["file:/ without authority", "file:/docs/secret.txt"],
    ["a query", "file:///docs/secret.txt?x=1"],
    ["a fragment", "file:///docs/secret.txt#top"],
    ["path case", "file:///docs/SECRET.txt"],
    ["escaped upper case", "file:///docs/%53ECRET.TXT?raw"],
    ["a trailing slash", "file:///docs/secret.txt/"],
    ["a trailing dot segment", "file:///docs/secret.txt/.?q"],
  ])("denies the secret spelled with %s", (_label, uri) => {
    const decision = respelled.decideResource("reader", "srv", uri);
    expect(decision).toMatchObject({ allowed: false, basis: "deny" });
  });

  it.each([
    ["an empty segment", "file:///docs//secret.txt"],
    ["an escaped slash", "file:///docs%2fsecret.txt"],
    ["a backslash", "file:///docs\\secret.txt"],
  ])("refuses the secret spelled with %s", (_label, uri) => {
    expect(respelled.decideResource("reader", "srv", uri)).toMatchObject({
      allowed: false,
      basis: "invalid-identity",
    });
  });

  it("allows the other documents and returns the spelling to send", () => {
    expect(respelled.decideResource("reader", "srv", "FILE://localhost/docs/./public.txt#x")).toMatchObject({
      allowed: true,
      resourceUri: "file:///docs/public.txt",
    });
    expect(respelled.decideResource("reader", "srv", "file:///docs/public.txt?secret.txt")).toMatchObject({
      allowed: true,
      resourceUri: "file:///docs/public.txt?secret.txt",
    });
  });

  it("denies a prompt whatever the case of its name", () => {
    for (const name of ["secret_prompt", "Secret_Prompt", "SECRET_PROMPT"]) {
      expect(respelled.decidePrompt("reader", "srv", name)).toMatchObject({ allowed: false, basis: "deny" });
    }
    expect(respelled.decidePrompt("reader", "srv", "public_prompt").allowed).toBe(true);
  });

  it("reads deny and allow patterns in canonical spelling too", () => {
    const p = new MCPPermissionPolicy({
      r: { resources: { allow: ["srv:FILE://localhost/docs/*"], deny: ["srv:file:///docs/%53ecret.txt"] } },
    });
    expect(p.decideResource("r", "srv", "file:///docs/a.txt").allowed).toBe(true);
    expect(p.decideResource("r", "srv", "file:///docs/secret.txt").allowed).toBe(false);
  });
});
