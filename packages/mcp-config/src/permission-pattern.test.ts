import { describe, expect, it } from "vitest";
import {
  canonicalResourceUri,
  permissionPatternProblem,
  promptPatternProblem,
  resourcePatternProblem,
  resourceUriProblem,
} from "./permission-pattern.js";

describe("permissionPatternProblem", () => {
  it.each([
    "filesystem.read_text_file",
    "filesystem.*",
    "github.get_*",
    "github.*_issue",
    "local-tools.echo",
    "my_server.tool.with.dots",
    "s3.bucket/list",
  ])("accepts %s", (pattern) => {
    expect(permissionPatternProblem(pattern)).toBeUndefined();
  });

  it.each([
    ["*", /would grant every tool of every server/],
    ["*.*", /would grant every tool of every server/],
    ["*.read_file", /only allowed in the tool part/],
    ["file*.read_file", /only allowed in the tool part/],
    ["filesystem", /expected "<server>.<tool>"/],
    ["", /expected "<server>.<tool>"/],
    ["filesystem.", /tool part of "filesystem." is empty/],
    ["FileSystem.*", /not a server name/],
    [".read_file", /not a server name/],
    ["file system.read", /not a server name/],
    ["filesystem.read file", /may only contain/],
  ])("refuses %j", (pattern, message) => {
    expect(permissionPatternProblem(pattern)).toMatch(message);
  });
});

describe("promptPatternProblem", () => {
  it.each(["github.review_code", "github.*", "github.review_*", "local-tools.summarize"])(
    "accepts %s",
    (p) => {
      expect(promptPatternProblem(p)).toBeUndefined();
    },
  );

  it.each([
    ["*", /would grant every prompt of every server/],
    ["*.*", /would grant every prompt of every server/],
    ["*.review", /only allowed in the prompt part/],
    ["github", /expected "<server>.<prompt>"/],
    ["github.", /prompt part of "github." is empty/],
    ["GitHub.review", /not a server name/],
    ["github.review code", /may only contain/],
  ])("refuses %j", (pattern, message) => {
    expect(promptPatternProblem(pattern)).toMatch(message);
  });
});

describe("resourcePatternProblem", () => {
  it.each([
    "docs:file:///srv/docs/*",
    "memory:memory://*",
    "docs:*",
    "docs:*.md",
    "docs:file:///srv/docs/readme.md",
    "db:postgres://host/db/table/*",
    "docs:file:///srv/My%20Docs/*",
  ])("accepts %s", (pattern) => {
    expect(resourcePatternProblem(pattern)).toBeUndefined();
  });

  it.each([
    ["*", /would grant resources of every server/],
    ["*:*", /would grant resources of every server/],
    ["*:file:///srv/*", /would grant resources of every server/],
    ["do*:file:///srv/*", /would grant resources of every server/],
    ["docs", /expected "<server>:<uri-pattern>"/],
    ["docs:", /URI part of "docs:" is empty; use "docs:\*"/],
    ["Docs:file:///x", /"Docs" in "Docs:file:\/\/\/x" is not a server name/],
    ["docs:/srv/docs/*", /must start with a URI scheme/],
    ["docs:file:///srv/docs/../*", /contains a "\.\." segment/],
    ["docs:file:///srv/docs/%2e%2e/*", /"\.\." segment/],
    ["docs:file:///srv/docs/%252e/*", /percent-encoded/],
    ["docs:file:///srv/my docs/*", /contains whitespace/],
    ["docs:file:///srv/\u0000/*", /control character/],
    [`docs:file:///${"a".repeat(9000)}`, /over the limit of 8192/],
  ])("refuses %j", (pattern, message) => {
    expect(resourcePatternProblem(pattern)).toMatch(message);
  });

  it("quotes a hostile pattern JSON-escaped and cut short, never raw", () => {
    const problem = resourcePatternProblem(`docs:file:///x\u001b[31m${"y".repeat(500)}`) ?? "";
    expect(problem).toContain("\\u001b");
    expect(problem).not.toContain("\u001b");
    expect(problem.length).toBeLessThan(400);
  });
});

describe("resourceUriProblem (the URIs an agent asks for)", () => {
  it.each(["file:///srv/docs/a.md", "memory://notes/1", "file:///srv/My%20Docs/a.md", "urn:isbn:123"])(
    "accepts %s",
    (uri) => {
      expect(resourceUriProblem(uri)).toBeUndefined();
    },
  );

  it.each([
    ["", /is empty/],
    ["/srv/docs/a.md", /no URI scheme/],
    ["*", /no URI scheme/],
    ["file:///srv/docs/../etc/passwd", /"\.\." segment/],
    ["file:///srv/docs/..", /"\.\." segment/],
    ["file:///srv/docs/..\\..\\etc", /backslash/],
    ["memory://..", /"\.\." segment/],
    ["file:///srv/docs/%2E%2E/etc/passwd", /"\.\." segment/],
    ["file:///srv/docs/%2e./etc/passwd", /"\.\." segment/],
    ["file:///srv/docs//etc/passwd", /empty path segment/],
    ["file:////etc/passwd", /empty path segment/],
    ["file:///srv/docs/a%zz", /'%' that does not start/],
    ["file:///srv/docs/a%2", /'%' that does not start/],
    ["memory://./x", /"\.\." segment/],
    ["file:///srv/docs/%2fetc", /percent-encoded/],
    ["file:///srv/docs/%5C..", /percent-encoded/],
    ["file:///srv/docs/%00", /percent-encoded/],
    ["file:///srv/docs/a\nb", /control character/],
    ["file:///srv/docs/a\u0085b", /control character/],
    ["file:///srv/docs/a b", /whitespace/],
    [`file:///${"a".repeat(8200)}`, /over the limit/],
  ])("refuses %j", (uri, message) => {
    expect(resourceUriProblem(uri)).toMatch(message);
  });

  it("keeps dots that are not a whole segment", () => {
    expect(resourceUriProblem("file:///srv/docs/a..b/c...d")).toBeUndefined();
    expect(resourceUriProblem("file:///srv/docs/./a")).toBeUndefined();
  });
});

describe("canonicalResourceUri: one spelling for what servers read as one resource", () => {
  it.each([
    ["FILE:///docs/secret.txt", "file:///docs/secret.txt"],
    ["File:///docs/secret.txt", "file:///docs/secret.txt"],
    ["file:///docs/%73ecret.txt", "file:///docs/secret.txt"],
    ["file:///docs/secret.tx%74", "file:///docs/secret.txt"],
    ["file:///docs/./secret.txt", "file:///docs/secret.txt"],
    ["file:///docs/%2e/secret.txt", "file:///docs/secret.txt"],
    ["file:///./docs/secret.txt", "file:///docs/secret.txt"],
    ["file:///docs/.", "file:///docs/"],
    ["file://localhost/docs/secret.txt", "file:///docs/secret.txt"],
    ["file://LOCALHOST/docs/secret.txt", "file:///docs/secret.txt"],
    ["file:/docs/secret.txt", "file:///docs/secret.txt"],
    ["file:///docs/secret.txt#top", "file:///docs/secret.txt"],
    ["file:///docs/secret.txt?x=1#y", "file:///docs/secret.txt?x=1"],
    ["file:///docs/caf\u00e9.txt", "file:///docs/caf%C3%A9.txt"],
    ["file:///docs/caf%c3%a9.txt", "file:///docs/caf%C3%A9.txt"],
    ["file:///docs/My%20Docs/a.md", "file:///docs/My%20Docs/a.md"],
    ["HTTPS://Example.COM:/a/B", "https://example.com/a/B"],
    ["postgres://User@DB.example:5432/t", "postgres://User@db.example:5432/t"],
    ["test://static/resource/1", "test://static/resource/1"],
    ["urn:isbn:123", "urn:isbn:123"],
    ["memory://", "memory://"],
  ])("%s is %s", (uri, canonical) => {
    expect(canonicalResourceUri(uri)).toEqual({ uri: canonical });
  });

  it("is idempotent", () => {
    for (const uri of ["FILE://localhost/a/./b%7e?Q=%7e#f", "file:/x/%c3%a9/", "Memory://Notes/A"]) {
      const once = canonicalResourceUri(uri).uri as string;
      expect(canonicalResourceUri(once)).toEqual({ uri: once });
    }
  });

  it("keeps * in patterns and a pattern may start with it", () => {
    expect(canonicalResourceUri("FILE:///srv/*/a", { allowStar: true })).toEqual({ uri: "file:///srv/*/a" });
    expect(canonicalResourceUri("*.md", { allowStar: true })).toEqual({ uri: "*.md" });
    expect(canonicalResourceUri("*.md").problem).toMatch(/no URI scheme/);
  });
});
