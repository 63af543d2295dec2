// Shared by the e2e tests: temp folders, managers that are always closed, and process checks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import {
  type HttpTestServerOptions,
  processState,
  type RunningHttpTestServer,
  startHttpTestServer,
} from "@agentforge/test-servers";
import { expect } from "vitest";
import { MCPClientManager, type MCPClientManagerOptions } from "../../src/index.js";

/** A fresh temp folder, removed by `cleanup()`. */
export function tempDir(prefix = "mcp-client-e2e-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const cleanups: (() => unknown)[] = [];
const managers: MCPClientManager[] = [];

/** A manager whose stderr logs go to a temp folder; closed by `cleanup()`. */
export function manager(configs: MCPServerConfig[], options: MCPClientManagerOptions = {}): MCPClientManager {
  const created = new MCPClientManager(configs, {
    logDir: tempDir("mcp-logs-"),
    shutdownGraceMs: 500,
    ...options,
  });
  managers.push(created);
  return created;
}

/** Register something to stop after the test (an HTTP server, a temp file...). */
export function onCleanup(fn: () => unknown): void {
  cleanups.push(fn);
}

/** Close every manager and run every cleanup; call from afterEach. */
export async function cleanup(): Promise<void> {
  for (const created of managers.splice(0)) await created.closeAll();
  for (const fn of cleanups.splice(0).reverse()) await fn();
}

/** The pid reported by the test server's `pid` tool. */
export async function pidOf(created: MCPClientManager, server: string): Promise<number> {
  const result = await created.callTool(server, "pid");
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("pid tool returned no text");
  return Number(first.text);
}

/** The text of the first content item of a tool result. */
export function textOf(result: { content: { type: string; text?: string }[] }): string {
  const first = result.content[0];
  if (first?.type !== "text" || typeof first.text !== "string") throw new Error("expected a text result");
  return first.text;
}

/** Assert every pid is gone: not running and not a zombie. */
export function expectGone(pids: number[]): void {
  for (const pid of pids) expect(`${pid}:${processState(pid)}`).toBe(`${pid}:gone`);
}

/** Catch the rejection of a promise (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected a rejection");
}

/** The in-repo authorization server + MCP server (test-servers --auth-server), stopped by `cleanup()`. */
export async function authTestServer(options: HttpTestServerOptions): Promise<RunningHttpTestServer> {
  const running = await startHttpTestServer({ authServer: true, ...options });
  onCleanup(() => running.stop());
  return running;
}

/** What the authorization server saw (its /admin/oauth counters), in the shape the test reads. */
export async function oauthStats<T>(running: RunningHttpTestServer): Promise<T> {
  return (await fetch(`${running.origin}/admin/oauth`)).json() as Promise<T>;
}

/** An `authorize` that plays the browser: follow the URL (the server redirects back with a code). */
export function browser(): { opened: URL[]; authorize: (url: URL) => Promise<void> } {
  const opened: URL[] = [];
  const authorize = async (url: URL) => {
    opened.push(new URL(url));
    const response = await fetch(url, { redirect: "follow" });
    await response.body?.cancel();
  };
  return { opened, authorize };
}
