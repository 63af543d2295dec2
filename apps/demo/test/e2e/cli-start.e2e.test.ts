// Which packages the built CLI loads at start: `--help` loads none of the heavy ones, `mcp list` (which
// never connects) none of LangChain, Hono or PGlite. Counts loaded modules through a module `load` hook;
// no timing assertions.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "./cli.js";

const SHIPPED_CONFIG = fileURLToPath(new URL("../../config/mcp_servers.yaml", import.meta.url));
let dir: string;
let register: string;

/** The module URLs `node <args>` loads, and its exit status. */
function loads(args: string[]): { status: number | null; urls: string[] } {
  const result = spawnSync(process.execPath, ["--import", register, ...args], { encoding: "utf8" });
  const urls = result.stderr
    .split("\n")
    .filter((line) => line.startsWith("cli-start-load "))
    .map((line) => line.slice("cli-start-load ".length));
  return { status: result.status, urls };
}

const loaded = (urls: string[], name: string) => urls.some((url) => url.includes(`/node_modules/${name}/`));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agentforge-cli-start-"));
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { writeSync } from "node:fs";
export async function load(url, context, next) {
  const result = await next(url, context);
  writeSync(2, "cli-start-load " + url + "\\n");
  return result;
}\n`,
  );
  register = pathToFileURL(join(dir, "register.mjs")).href;
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentforge start-up loads only what the command needs", () => {
  it("--help loads no package at all: only the CLI's own modules and node: built-ins", () => {
    const { status, urls } = loads([CLI, "--help"]);
    expect(status).toBe(0);
    expect(urls).toContain(pathToFileURL(CLI).href);
    const dist = `${pathToFileURL(dirname(CLI)).href}/`;
    expect(urls.filter((url) => !url.startsWith("node:") && !url.startsWith(dist))).toEqual([]);
  });

  it("mcp list loads the config package but not LangChain, Hono, PGlite or the providers", () => {
    const state = join(dir, "state");
    const { status, urls } = loads([CLI, "mcp", "list", "--config", SHIPPED_CONFIG, "--state-dir", state]);
    expect(status).toBe(0);
    expect(urls.some((url) => url.includes("/mcp-config/dist/"))).toBe(true);
    for (const name of ["@langchain/core", "@langchain/openai", "langsmith", "hono", "@hono/node-server"]) {
      expect(loaded(urls, name), name).toBe(false);
    }
    expect(urls.some((url) => url.includes("pglite"))).toBe(false);
  });
});
