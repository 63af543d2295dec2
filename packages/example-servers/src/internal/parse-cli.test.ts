import { describe, expect, it } from "vitest";
import { type CliSpec, parseCli, UsageError, usage } from "./parse-cli.js";

const spec: CliSpec = {
  bin: "agentforge-test",
  version: "1.2.3",
  summary: "test server",
  positionals: "[ROOT...]",
  options: [{ name: "mode", valueName: "MODE", description: "a mode" }],
};

describe("parseCli", () => {
  it("defaults to stdio", () => {
    expect(parseCli([], spec)).toEqual({
      kind: "serve",
      transport: "stdio",
      host: "127.0.0.1",
      port: 0,
      positionals: [],
      options: { mode: undefined },
    });
  });
  it("parses --http, --host, --port, options and positionals", () => {
    expect(parseCli(["--http", "--host", "::1", "--port", "8080", "--mode", "x", "/a", "/b"], spec)).toEqual({
      kind: "serve",
      transport: "http",
      host: "::1",
      port: 8080,
      positionals: ["/a", "/b"],
      options: { mode: "x" },
    });
  });
  it("help and version", () => {
    expect(parseCli(["-h"], spec)).toEqual({ kind: "help", text: usage(spec) });
    expect(parseCli(["--version"], spec)).toEqual({ kind: "version", text: "1.2.3\n" });
    expect(usage(spec)).toContain("[--mode MODE] [ROOT...]");
  });
  it.each([
    [["--bogus"], /Unknown option '--bogus'/],
    [["--port", "1"], /only apply with --http/],
    [["--http", "--port=-1"], /--port expects an integer from 0 to 65535, got "-1"/],
    [["--http", "--port", "70000"], /got "70000"/],
    [["--http", "--port", "1e3"], /got "1e3"/],
    [["--http", "--host", ""], /--host expects an interface address/],
    [["--http", "--port"], /argument missing|--port/],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseCli(argv, spec)).toThrow(UsageError);
    expect(() => parseCli(argv, spec)).toThrow(message);
  });
  it("refuses positionals when the server takes none", () => {
    expect(() => parseCli(["extra"], { ...spec, positionals: undefined })).toThrow(
      /Unexpected argument 'extra'/,
    );
  });
});
