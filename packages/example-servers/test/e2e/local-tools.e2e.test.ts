import { request } from "node:http";
import type { Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, runBin, startBin, stopAll, textOf } from "./helpers.js";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stopAll();
});

async function exercise(client: Client) {
  clients.push(client);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(["current_time", "echo", "word_count"]);
  for (const tool of tools) {
    expect(tool.description).toBeTruthy();
    expect(tool.inputSchema.type).toBe("object");
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
  }
  expect(textOf(await client.callTool({ name: "echo", arguments: { text: "héllo ✓" } }))).toBe("héllo ✓");
  const counted = await client.callTool({
    name: "word_count",
    arguments: { text: "Hello 世界 ไทยภาษา, Привет мир" },
  });
  expect(counted.structuredContent).toEqual({ words: 6, characters: 28, lines: 1 });
  const paris = await client.callTool({ name: "current_time", arguments: { timezone: "Europe/Paris" } });
  expect(paris.isError).toBeFalsy();
  expect(paris.structuredContent).toMatchObject({ timezone: "Europe/Paris" });
  expect(String((paris.structuredContent as { iso: string }).iso)).toMatch(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/,
  );
  const bad = await client.callTool({ name: "current_time", arguments: { timezone: "Mars/Olympus_Mons" } });
  expect(bad.isError).toBe(true);
  expect(textOf(bad)).toContain('Unknown time zone "Mars/Olympus_Mons"');
}

describe("agentforge-local-tools", () => {
  it("serves its tools over stdio", async () => {
    await exercise(await connectStdio("local-tools"));
  });

  it("serves its tools over Streamable HTTP on loopback without a token", async () => {
    const bin = await startBin("local-tools", ["--http", "--port", "0"]);
    expect(bin.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await exercise(await connectHttp(bin.url));
  });

  it("requires the bearer token when MCP_HTTP_TOKEN is set (401 otherwise)", async () => {
    const bin = await startBin("local-tools", ["--http"], { env: { MCP_HTTP_TOKEN: "s3cret-token" } });
    await expect(connectHttp(bin.url)).rejects.toThrow(/401|Unauthorized/);
    await expect(connectHttp(bin.url, "wrong-token")).rejects.toThrow(/401|Unauthorized/);
    await exercise(await connectHttp(bin.url, "s3cret-token"));
  });

  it("refuses DNS-rebinding Host and Origin headers", async () => {
    const bin = await startBin("local-tools", ["--http"]);
    const port = new URL(bin.url).port;
    // node:http, because fetch does not let a caller set Host.
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          bin.url,
          { method: "POST", headers: { "content-type": "application/json", ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once("error", reject);
        req.end("{}");
      });
    expect(await post({ host: `evil.example:${port}` })).toBe(403);
    expect(await post({ origin: "http://evil.example" })).toBe(403);
    expect(await post({ origin: `http://localhost:${port}` })).toBe(400); // allowed origin, but no session
    expect(await post({})).toBe(400);
  });

  it("refuses to bind off loopback without a token, exit code 2", async () => {
    const result = await runBin("local-tools", ["--http", "--host", "0.0.0.0"], { MCP_HTTP_TOKEN: "" });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /refusing to serve on 0\.0\.0\.0 without a bearer token: set MCP_HTTP_TOKEN/,
    );
  });

  it("--help, --version and bad flags", async () => {
    const help = await runBin("local-tools", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^agentforge-local-tools \d+\.\d+\.\d+ — /);
    expect(help.stdout).toContain("--http");
    const version = await runBin("local-tools", ["--version"]);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const bad = await runBin("local-tools", ["--bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--bogus'");
    expect(bad.stdout).toBe("");
    const badPort = await runBin("local-tools", ["--http", "--port", "http"]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port expects an integer from 0 to 65535, got "http"');
  });

  it("ends at stdin EOF and on SIGTERM", async () => {
    const eof = await startBin("local-tools", []);
    const eofExit = new Promise((resolve) => eof.child.once("exit", (code) => resolve(code)));
    eof.child.stdin?.end();
    expect(await eofExit).toBe(0);
    const http = await startBin("local-tools", ["--http"]);
    const termExit = new Promise((resolve) => http.child.once("exit", (code) => resolve(code)));
    http.child.kill("SIGTERM");
    expect(await termExit).toBe(0);
  });
});
