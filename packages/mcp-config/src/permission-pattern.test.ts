import { describe, expect, it } from "vitest";
import { permissionPatternProblem } from "./permission-pattern.js";

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
