// The offline documentation on real packages nobody here wrote (the corpus in docs-corpus.ts): the built
// `agentforge docs --model offline` as a child process, the real filesystem and sequential-thinking
// servers, one run per package copied to a temporary folder. Each entry's facts must hold; the share of
// facts held over the whole corpus is reported (test-output/docs-corpus.md) and must stay at 95 % or more.
//
// npm entries are devDependencies and always present. Debian entries need their packages installed
// (`apt-get install` line below, run by .ci/run when missing): without them the entry is skipped with a
// note, except under CI, where a missing or different package fails the test.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentforge, killRunning } from "./cli.js";
import { CORPUS, type CorpusEntry, type CorpusFact, DEBIAN_PACKAGES } from "./docs-corpus.js";
import { exampleServer, TEST_OUTPUT } from "./mcp-fixtures.js";

const DEMO = fileURLToPath(new URL("../..", import.meta.url));
const APT_LINE = `apt-get install -y --no-install-recommends ${DEBIAN_PACKAGES.join(" ")}`;
/** Concurrent CLI runs (the CI machine has 2 cores; each run also starts two servers). */
const CONCURRENT_RUNS = 2;

let base = "";
let roster = "";

interface DocsRun {
  document: string;
  calls: { identity: string; round: number; ok: boolean }[];
}

/** Why an entry cannot be documented here (its Debian package missing or of another version), or undefined. */
function unavailable(entry: CorpusEntry): string | undefined {
  if (entry.source.kind !== "debian") return undefined;
  const { deb, version } = entry.source;
  let installed = "";
  try {
    installed = execFileSync("dpkg-query", ["-W", "-f=${Version}", deb], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
  } catch (error) {
    return `Debian package ${deb} is not installed (${(error as Error).message.split("\n")[0]}); install the corpus with: ${APT_LINE}`;
  }
  // The upstream version is what the facts depend on (a Debian revision may change, not the sources).
  const upstream = (v: string) => v.replace(/-[^-]*$/, "");
  if (!installed || upstream(installed) !== upstream(version))
    return `Debian package ${deb} is ${installed || "not installed"}, the facts were written for ${version}; install the corpus with: ${APT_LINE}`;
  return undefined;
}

/** The entry's files copied to a fresh folder named after it (the documents name only relative paths). */
function materialize(entry: CorpusEntry): string {
  const target = join(base, entry.id);
  mkdirSync(target, { recursive: true });
  const skipDependencies = (source: string) => basename(source) !== "node_modules";
  if (entry.source.kind === "npm") {
    const installed = realpathSync(join(DEMO, "node_modules", entry.source.alias));
    const from = entry.source.subfolder ? join(installed, entry.source.subfolder) : installed;
    cpSync(from, target, { recursive: true, dereference: true, filter: skipDependencies });
    return target;
  }
  for (const { from, to } of entry.source.copy) {
    const destination = join(target, to);
    if (!existsSync(from)) throw new Error(`${entry.id}: ${from} is missing (package ${entry.source.deb})`);
    if (from.endsWith(".tar.gz")) {
      mkdirSync(destination, { recursive: true });
      execFileSync("tar", ["-xzf", from, "-C", destination]);
    } else if (from.endsWith(".gz")) {
      mkdirSync(dirname(destination), { recursive: true });
      writeFileSync(destination, gunzipSync(readFileSync(from)));
    } else if (statSync(from).isDirectory()) {
      cpSync(from, destination, { recursive: true, dereference: true, filter: skipDependencies });
    } else {
      mkdirSync(dirname(destination), { recursive: true });
      cpSync(from, destination, { dereference: true });
    }
  }
  return target;
}

/** Document a folder offline; the run must finish with every tool call successful, within the budget. */
async function documentFolder(folder: string): Promise<DocsRun> {
  const state = mkdtempSync(join(base, "state-"));
  const result = await agentforge(["docs", folder, "--json", "--config", roster, "--state-dir", state], {
    timeoutMs: 150_000,
  });
  expect(`${result.code} ${result.stderr}`).toMatch(/^0 /);
  const json = JSON.parse(result.stdout) as DocsRun & { status: string };
  expect(json.status).toBe("finished");
  expect(json.calls.filter((c) => !c.ok)).toEqual([]);
  return json;
}

/** The text of one `## Section` of a document ("" when it has none). */
function section(document: string, title: string): string {
  const start = document.indexOf(`\n## ${title}\n`);
  if (start === -1) return "";
  const end = document.indexOf("\n## ", start + 4);
  return document.slice(start + 1, end === -1 ? undefined : end);
}

/** Files that come after the entry points: tests, fixtures, examples, benchmarks, type tests, CI scripts. */
const SECONDARY =
  /(^|\/)(tests?|__tests__|spec|fixtures?|testdata|examples?|benches|benchmarks?|test-d|\.devcontainer|\.github)\/|[._-](test|spec|bench)\.[a-z]+$|_test\.(go|py)$|(^|\/)test_[^/]+\.py$|\.test-d\.ts$/;

/** The files the Key files section lists, in order. */
function keyFiles(document: string): string[] {
  return [...section(document, "Key files").matchAll(/^- (`+) ?(.+?) ?\1 — /gm)].map((m) => m[2] as string);
}

/** The generic fact every entry has: title and purpose are clean Markdown. */
const CLEAN: CorpusFact = {
  says: "title and purpose hold no HTML, entities, badges or stray escapes",
  section: "Head",
  lacks: /<\/?[a-z][^>]*>|&[a-z]+;|&#\d+;|!\[|\]\[|\\[`*_\\<>#~$|]|\n\\/i,
};

/** Whether the document holds the fact. */
function holds(document: string, fact: CorpusFact): boolean {
  const titleLine = /^# (.*)$/m.exec(document)?.[1] ?? "";
  const text =
    fact.section === "Title"
      ? titleLine
      : fact.section === "Head"
        ? `${titleLine}\n${section(document, "Purpose").replace(/^## Purpose\n\n?/, "")}`
        : section(document, fact.section);
  if (fact.has && !fact.has.test(text)) return false;
  if (fact.lacks?.test(text)) return false;
  if (fact.entry !== undefined) {
    const files = keyFiles(document);
    const at = files.indexOf(fact.entry);
    const firstSecondary = files.findIndex((f) => SECONDARY.test(f));
    if (at === -1 || (firstSecondary !== -1 && firstSecondary < at)) return false;
  }
  return true;
}

interface EntryResult {
  id: string;
  language: string;
  facts: { says: string; held: boolean; gap?: string }[];
  ms: number;
}
const results = new Map<string, EntryResult>();
const skipped = new Map<string, string>();
const documents = new Map<string, Promise<{ run: DocsRun; ms: number }>>();

/** Start the runs now, CONCURRENT_RUNS at a time, in corpus order; each test awaits its own. */
function startRuns(entries: CorpusEntry[]): void {
  let active = 0;
  const queue: (() => void)[] = [];
  const slot = () =>
    new Promise<void>((resolve) => {
      if (active < CONCURRENT_RUNS) {
        active++;
        resolve();
      } else queue.push(resolve);
    });
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  for (const entry of entries) {
    const promise = (async () => {
      await slot();
      try {
        const folder = materialize(entry);
        const started = performance.now();
        const run = await documentFolder(folder);
        return { run, ms: performance.now() - started };
      } finally {
        release();
      }
    })();
    // Awaited by the entry's test; a failure is reported there, not as an unhandled rejection here.
    promise.catch(() => {});
    documents.set(entry.id, promise);
  }
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "agentforge-docs-corpus-")));
  roster = join(base, "mcp_servers.yaml");
  writeFileSync(
    roster,
    `servers:
${exampleServer("filesystem")}
${exampleServer("sequential-thinking")}
permissions:
  documentation: [filesystem.*, sequential-thinking.*]
`,
  );
  const present: CorpusEntry[] = [];
  for (const entry of CORPUS) {
    const why = unavailable(entry);
    if (why) skipped.set(entry.id, why);
    else present.push(entry);
  }
  startRuns(present);
});
// Runs go on across tests (each test awaits its own), so children are ended once all tests are done.
afterAll(() => {
  killRunning();
  writeReport();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** The per-entry table (Markdown) and the raw results (JSON) in test-output/. */
function writeReport(): void {
  const rows = CORPUS.map((entry) => {
    const result = results.get(entry.id);
    if (!result)
      return `| ${entry.id} | ${entry.language} | skipped | ${skipped.get(entry.id) ?? "not run"} |`;
    const held = result.facts.filter((f) => f.held).length;
    const missed = result.facts.filter((f) => !f.held).map((f) => f.says);
    return `| ${entry.id} | ${entry.language} | ${held}/${result.facts.length} | ${missed.join("; ") || "—"} |`;
  });
  const all = [...results.values()].flatMap((r) => r.facts);
  const held = all.filter((f) => f.held).length;
  const share = all.length > 0 ? (100 * held) / all.length : 0;
  const text = [
    "# Offline documentation: facts held on the corpus",
    "",
    `${held} of ${all.length} facts held (${share.toFixed(1)} %) over ${results.size} of ${CORPUS.length} entries.`,
    "",
    "| entry | language | facts held | missed |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
  mkdirSync(TEST_OUTPUT, { recursive: true });
  writeFileSync(join(TEST_OUTPUT, "docs-corpus.md"), text);
  writeFileSync(
    join(TEST_OUTPUT, "docs-corpus.json"),
    `${JSON.stringify({ held, total: all.length, entries: [...results.values()], skipped: Object.fromEntries(skipped) }, null, 2)}\n`,
  );
  console.log(
    `docs corpus: ${held}/${all.length} facts held (${share.toFixed(1)} %); see test-output/docs-corpus.md`,
  );
}

describe("offline documentation of real packages (the docs corpus)", () => {
  for (const entry of CORPUS) {
    it(`${entry.id} ${entry.version} (${entry.language}: ${entry.shape})`, async (context) => {
      const why = skipped.get(entry.id);
      if (why) {
        if (process.env.CI) throw new Error(`corpus entry ${entry.id} is missing under CI: ${why}`);
        console.warn(`skipping corpus entry ${entry.id}: ${why}`);
        context.skip(why);
        return;
      }
      const { run, ms } = await (documents.get(entry.id) as Promise<{ run: DocsRun; ms: number }>);
      const { document, calls } = run;
      // Nothing from outside the folder: no absolute path of this machine, within the tool budget.
      expect(document).not.toContain(base);
      expect(document).not.toContain(DEMO);
      expect(calls.length).toBeLessThanOrEqual(30);
      writeFileSync(join(base, `${entry.id}.md`), document);

      const facts = [...entry.facts, CLEAN].map((fact) => ({
        says: fact.says,
        held: holds(document, fact),
        ...(fact.gap ? { gap: fact.gap } : {}),
      }));
      results.set(entry.id, { id: entry.id, language: entry.language, facts, ms });
      mkdirSync(join(TEST_OUTPUT, "docs-corpus"), { recursive: true });
      writeFileSync(join(TEST_OUTPUT, "docs-corpus", `${entry.id}.md`), document);

      const unexpected = facts.filter((f) => !f.held && !f.gap).map((f) => f.says);
      const closed = facts.filter((f) => f.held && f.gap).map((f) => f.says);
      expect(unexpected, `facts missed by the document of ${entry.id}:\n${document}`).toEqual([]);
      expect(closed, `gaps that now hold (remove their \`gap\` mark in docs-corpus.ts)`).toEqual([]);
    });
  }

  it("holds at least 95 % of the facts over the corpus", () => {
    const all = [...results.values()].flatMap((r) => r.facts);
    expect(all.length).toBeGreaterThan(0);
    const share = all.filter((f) => f.held).length / all.length;
    expect(share).toBeGreaterThanOrEqual(0.95);
  });
});
