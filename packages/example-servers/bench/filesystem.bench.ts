// agentforge-filesystem side by side with the official reference server
// (@modelcontextprotocol/server-filesystem, a devDependency), both spawned as real stdio servers, on a
// generated tree of 50,000 files. Each operation is sampled alternately on both servers in the same run;
// ratios are ours / official (below 1× means we are faster). Response sizes are the JSON-RPC result as
// sent; the SDK client's default stdio limit is 10 MiB, so the clients here raise it to see the official
// server's large replies at all.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Figures, formatRatio, heading, printFigure, printTable, summarize } from "@agentforge/bench";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const require = createRequire(import.meta.url);
const ours = require
  .resolve("@agentforge/example-servers/package.json")
  .replace("package.json", "dist/bin/filesystem.js");
const official = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const SDK_DEFAULT_LIMIT = 10 * 1024 * 1024;
const EXTENSIONS = ["ts", "js", "json", "md", "txt", "css", "html", "py", "go", "rs", "yml", "svg"];

/** 50,000 files, 5 levels, mixed extensions, one folder of 5,000 entries, a few large files; 1% are .log. */
function generateTree(root: string): { files: number; logFiles: number; hundred: string[] } {
  let files = 0;
  let logFiles = 0;
  const hundred: string[] = [];
  const write = (path: string, content: string) => {
    writeFileSync(path, content);
    files++;
  };
  const line = "export const value = 'lorem ipsum dolor sit amet, consectetur adipiscing elit';\n";
  const big = (bytes: number) => line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  write(join(root, "big-10mb.txt"), big(10 * 1024 * 1024));
  write(join(root, "big-3mb.log"), big(3 * 1024 * 1024));
  logFiles++;
  write(join(root, "big-2mb.json"), big(2 * 1024 * 1024));
  mkdirSync(join(root, "wide"));
  for (let i = 0; i < 5000; i++)
    write(join(root, "wide", `item-${i}.${EXTENSIONS[i % EXTENSIONS.length]}`), big(64 + (i % 900)));
  const leaves: string[] = [];
  for (let a = 0; a < 6; a++)
    for (let b = 0; b < 6; b++)
      for (let c = 0; c < 6; c++)
        for (let d = 0; d < 6; d++) leaves.push(join(root, `pkg-${a}`, `mod-${b}`, `src-${c}`, `part-${d}`));
  const perLeaf = Math.ceil((50_000 - files) / leaves.length);
  let n = 0;
  for (const leaf of leaves) {
    mkdirSync(leaf, { recursive: true });
    for (let f = 0; f < perLeaf && files < 50_000; f++, n++) {
      const log = n % 100 === 0;
      const name = `file-${f}.${log ? "log" : EXTENSIONS[n % EXTENSIONS.length]}`;
      write(join(leaf, name), big(120 + (n % 2000)));
      if (log) logFiles++;
      if (hundred.length < 100 && n % 37 === 0) hundred.push(join(leaf, name));
    }
  }
  return { files, logFiles, hundred };
}

interface Server {
  name: string;
  client: Client;
  transport: StdioClientTransport;
}

async function connect(name: string, script: string, root: string): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, root],
    env: { PATH: process.env.PATH ?? "" },
    stderr: "ignore",
    maxBufferSize: 512 * 1024 * 1024,
  });
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(transport);
  return { name, client, transport };
}

function rssKiB(pid: number | null | undefined, field: "VmRSS" | "VmHWM"): number {
  if (!pid) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
}

const bytesOf = (result: unknown) => Buffer.byteLength(JSON.stringify(result));
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

/** Sample one tool call alternately on both servers; print times, ratio and reply sizes. */
async function measure(
  title: string,
  servers: [Server, Server],
  tool: string,
  args: Record<string, unknown>,
  samples: number,
): Promise<Figures[]> {
  heading(title);
  const times: number[][] = [[], []];
  const sizes = [0, 0];
  const notes = ["", ""];
  for (let i = -1; i < samples; i++) {
    for (const [index, server] of servers.entries()) {
      const started = performance.now();
      const result = await server.client.callTool(
        { name: tool, arguments: args },
        {
          timeout: 300_000,
        },
      );
      const elapsed = performance.now() - started;
      if (result.isError) throw new Error(`${server.name} ${tool} failed: ${JSON.stringify(result.content)}`);
      if (i >= 0) times[index]?.push(elapsed);
      sizes[index] = bytesOf(result);
      const text = JSON.stringify(result.content);
      notes[index] = text.includes("[truncated:") ? "bounded, with a truncation note" : "complete";
    }
  }
  const rows = servers.map((s, i) => summarize(s.name, times[i] ?? []));
  printTable(rows);
  for (const [i, s] of servers.entries()) {
    printFigure(
      `${s.name}: reply size`,
      `${mib(sizes[i] ?? 0)} (${notes[i]}${(sizes[i] ?? 0) > SDK_DEFAULT_LIMIT ? "; over the SDK client's default 10 MiB: a default client loses the connection" : ""})`,
    );
  }
  return rows;
}

async function coldStart(script: string, root: string): Promise<number> {
  const started = performance.now();
  const server = await connect("cold", script, root);
  await server.client.listTools();
  const elapsed = performance.now() - started;
  await server.client.close();
  return elapsed;
}

const base = mkdtempSync(join(tmpdir(), "af-fs-bench-"));
const root = join(base, "tree");
mkdirSync(root);
const servers: Server[] = [];
try {
  const generating = performance.now();
  const generated = generateTree(root);
  heading("filesystem: official reference server vs agentforge-filesystem (ratios are ours / official)");
  printFigure("generated files", generated.files);
  printFigure(".log files (search target, ~1%)", generated.logFiles);
  printFigure("generation time", `${((performance.now() - generating) / 1000).toFixed(1)} s`);

  const pair: [Server, Server] = [
    await connect("official", official, root),
    await connect("ours", ours, root),
  ];
  servers.push(...pair);
  const idleRss = pair.map((s) => rssKiB(s.transport.pid, "VmRSS"));

  const ratios: [string, Figures[]][] = [];
  ratios.push([
    "directory_tree of the root",
    await measure("directory_tree of the root (50,000 files)", pair, "directory_tree", { path: root }, 3),
  ]);
  ratios.push([
    "search_files **/*.log",
    await measure(
      "search_files '**/*.log' (~1% of files)",
      pair,
      "search_files",
      { path: root, pattern: "**/*.log" },
      3,
    ),
  ]);
  ratios.push([
    "list_directory_with_sizes",
    await measure(
      "list_directory_with_sizes of the 5,000-entry folder",
      pair,
      "list_directory_with_sizes",
      { path: join(root, "wide") },
      10,
    ),
  ]);
  ratios.push([
    "read_multiple_files ×100",
    await measure(
      "read_multiple_files of 100 files",
      pair,
      "read_multiple_files",
      { paths: generated.hundred },
      20,
    ),
  ]);
  ratios.push([
    "read_text_file 10 MB",
    await measure(
      "read_text_file of a 10 MB file (no head)",
      pair,
      "read_text_file",
      { path: join(root, "big-10mb.txt") },
      5,
    ),
  ]);
  ratios.push([
    "read_text_file 10 MB, head 100",
    await measure(
      "read_text_file of a 10 MB file, head: 100",
      pair,
      "read_text_file",
      { path: join(root, "big-10mb.txt"), head: 100 },
      20,
    ),
  ]);

  heading("memory (RSS of the server process)");
  const peakRss = pair.map((s) => rssKiB(s.transport.pid, "VmHWM"));
  for (const [i, s] of pair.entries()) {
    printFigure(`${s.name}: RSS after start`, `${((idleRss[i] ?? 0) / 1024).toFixed(1)} MiB`);
    printFigure(
      `${s.name}: peak RSS over the whole workload`,
      `${((peakRss[i] ?? 0) / 1024).toFixed(1)} MiB`,
    );
  }
  printFigure("ratio ours / official (RSS after start)", formatRatio(idleRss[1] ?? 0, idleRss[0] ?? 1));
  printFigure("ratio ours / official (peak RSS)", formatRatio(peakRss[1] ?? 0, peakRss[0] ?? 1));
  for (const s of pair) await s.client.close();
  servers.length = 0;

  heading("cold start: spawn → initialize → tools/list");
  const starts: number[][] = [[], []];
  for (let i = 0; i < 15; i++) {
    starts[0]?.push(await coldStart(official, root));
    starts[1]?.push(await coldStart(ours, root));
  }
  const coldRows = [summarize("official", starts[0] ?? []), summarize("ours", starts[1] ?? [])];
  printTable(coldRows);
  ratios.push(["cold start", coldRows]);

  heading(
    "summary: median ours / official (target: tree, search, list ≤ 0.5×; reads ≤ 1×; cold start ≤ 0.5×)",
  );
  for (const [label, [theirs, mine]] of ratios as [string, [Figures, Figures]][]) {
    printFigure(label, formatRatio(mine.medianMs, theirs.medianMs));
  }
} finally {
  await Promise.all(servers.map((s) => s.client.close().catch(() => undefined)));
  rmSync(base, { recursive: true, force: true });
}
