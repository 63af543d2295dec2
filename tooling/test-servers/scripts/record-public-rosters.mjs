#!/usr/bin/env node
// Records the `tools/list` of public MCP servers published on npm into ../rosters/public/<server>.json,
// for the large-roster tests and the tool-search bench (replayed by servers/replay-server.mjs).
//
//   node tooling/test-servers/scripts/record-public-rosters.mjs [server ...]
//
// How: the exact package versions below (the catalog's pins for the packages the repo already uses) are
// installed with npm into a temporary folder, install scripts off (so nothing is downloaded from outside
// the npm registry: puppeteer's browser download is its install script), then each server is started
// over stdio with placeholder credentials (no server checks a credential before it lists its tools),
// its whole tool list is read with the MCP SDK client (every page), and written as received. Redis
// needs a live Redis to start: `redis-server` from PATH is started on a free loopback port for it (left
// out, with a note, when there is none). Nothing here contacts the services themselves. The files are
// written as JSON.stringify gives them: run `pnpm exec biome format --write tooling/test-servers/rosters`
// afterwards (the repository's formatter owns their layout).
//
// The git server (`mcp-server-git`) is a Python package, not on npm: rosters/public/git.json is written
// by hand from its documented interface (README of modelcontextprotocol/servers, src/git) and is not
// touched by this script.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, "..", "rosters", "public");
const workspaceFile = join(here, "..", "..", "..", "pnpm-workspace.yaml");

/** The version the catalog pins for a package (the repo's other tests use that very version). */
function catalogVersion(pkg) {
  const text = readFileSync(workspaceFile, "utf8");
  const line = text.split("\n").find((l) => l.trim().startsWith(`"${pkg}":`));
  if (!line) throw new Error(`${pkg} is not in the catalog of ${workspaceFile}`);
  return line.split(":").slice(1).join(":").trim();
}

/**
 * The servers: roster name, npm package and version, bin, arguments and placeholder environment. The
 * deprecated reference servers are pinned to their last published versions.
 */
const SERVERS = [
  {
    name: "filesystem",
    pkg: "@modelcontextprotocol/server-filesystem",
    bin: "mcp-server-filesystem",
    args: (ctx) => [ctx.emptyDir],
  },
  {
    name: "everything",
    pkg: "@modelcontextprotocol/server-everything",
    bin: "mcp-server-everything",
    args: () => ["stdio"],
  },
  {
    name: "memory",
    pkg: "@modelcontextprotocol/server-memory",
    bin: "mcp-server-memory",
    env: (ctx) => ({ MEMORY_FILE_PATH: join(ctx.emptyDir, "memory.jsonl") }),
  },
  {
    name: "sequential-thinking",
    pkg: "@modelcontextprotocol/server-sequential-thinking",
    bin: "mcp-server-sequential-thinking",
  },
  {
    name: "postgres",
    pkg: "@modelcontextprotocol/server-postgres",
    bin: "mcp-server-postgres",
    args: () => ["postgresql://recorder@127.0.0.1:9/none"],
  },
  {
    name: "playwright",
    pkg: "@playwright/mcp",
    bin: "playwright-mcp",
    args: () => ["--headless", "--isolated"],
  },
  {
    name: "github",
    pkg: "@modelcontextprotocol/server-github",
    version: "2025.4.8",
    bin: "mcp-server-github",
    env: () => ({ GITHUB_PERSONAL_ACCESS_TOKEN: "placeholder" }),
  },
  {
    name: "gitlab",
    pkg: "@modelcontextprotocol/server-gitlab",
    version: "2025.4.25",
    bin: "mcp-server-gitlab",
    env: () => ({ GITLAB_PERSONAL_ACCESS_TOKEN: "placeholder" }),
  },
  {
    name: "slack",
    pkg: "@modelcontextprotocol/server-slack",
    version: "2025.4.25",
    bin: "mcp-server-slack",
    env: () => ({ SLACK_BOT_TOKEN: "placeholder", SLACK_TEAM_ID: "T00000000" }),
  },
  {
    name: "puppeteer",
    pkg: "@modelcontextprotocol/server-puppeteer",
    version: "2025.5.12",
    bin: "mcp-server-puppeteer",
    env: () => ({ PUPPETEER_SKIP_DOWNLOAD: "1" }),
  },
  {
    name: "google-maps",
    pkg: "@modelcontextprotocol/server-google-maps",
    version: "0.6.2",
    bin: "mcp-server-google-maps",
    env: () => ({ GOOGLE_MAPS_API_KEY: "placeholder" }),
  },
  {
    name: "brave-search",
    pkg: "@modelcontextprotocol/server-brave-search",
    version: "0.6.2",
    bin: "mcp-server-brave-search",
    env: () => ({ BRAVE_API_KEY: "placeholder" }),
  },
  {
    name: "redis",
    pkg: "@modelcontextprotocol/server-redis",
    version: "2025.4.25",
    bin: "mcp-server-redis",
    args: (ctx) => [ctx.redisUrl],
    needsRedis: true,
  },
];

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Start `redis-server` on a free loopback port; resolves when it accepts connections. */
async function startRedis() {
  if (spawnSync("redis-server", ["--version"]).status !== 0) return undefined;
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise((resolve, reject) => {
    let seen = "";
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("Ready to accept connections")) resolve();
    });
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill("SIGTERM") };
}

async function listAllTools(server, dir, ctx) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(dir, "node_modules", ".bin", server.bin), ...(server.args?.(ctx) ?? [])].map(String),
    env: { PATH: process.env.PATH ?? "", HOME: ctx.emptyDir, ...(server.env?.(ctx) ?? {}) },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr = `${stderr}${chunk}`.slice(-4000);
  });
  const client = new Client({ name: "agentforge-roster-recorder", version: "1.0.0" });
  try {
    await client.connect(transport, { timeout: 60_000 });
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: 60_000 });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return { tools, serverInfo: client.getServerVersion() };
  } catch (error) {
    throw new Error(`${server.name}: ${error instanceof Error ? error.message : String(error)}\n${stderr}`);
  } finally {
    await client.close();
  }
}

async function main() {
  const only = process.argv.slice(2);
  const chosen = SERVERS.filter((s) => only.length === 0 || only.includes(s.name));
  const dir = mkdtempSync(join(tmpdir(), "agentforge-record-"));
  const emptyDir = join(dir, "empty");
  mkdirSync(emptyDir);
  const specs = chosen.map((s) => `${s.pkg}@${s.version ?? catalogVersion(s.pkg)}`);
  console.log(`installing into ${dir}: ${specs.join(" ")}`);
  writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
  const install = spawnSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", ...specs], {
    cwd: dir,
    stdio: "inherit",
    env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: "1" },
  });
  if (install.status !== 0) throw new Error(`npm install failed (${install.status})`);
  const redis = chosen.some((s) => s.needsRedis) ? await startRedis() : undefined;
  const ctx = { emptyDir, redisUrl: redis?.url };
  mkdirSync(outDir, { recursive: true });
  try {
    for (const server of chosen) {
      if (server.needsRedis && !redis) {
        console.log(`${server.name}: skipped (it needs a live Redis, and redis-server is not on PATH)`);
        continue;
      }
      const version = server.version ?? catalogVersion(server.pkg);
      const { tools, serverInfo } = await listAllTools(server, dir, ctx);
      const record = {
        server: server.name,
        source: {
          kind: "recorded",
          package: server.pkg,
          version,
          serverInfo,
          how: "tools/list over stdio from the published npm package (tooling/test-servers/scripts/record-public-rosters.mjs)",
          recordedAt: new Date().toISOString().slice(0, 10),
        },
        tools,
      };
      writeFileSync(join(outDir, `${server.name}.json`), `${JSON.stringify(record, null, 2)}\n`);
      console.log(`${server.name}: ${tools.length} tools (${server.pkg}@${version})`);
    }
  } finally {
    redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
