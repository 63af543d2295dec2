// The offline strategy through the real stack: `agentforge docs` as a child process, the real filesystem
// and sequential-thinking servers (built bins of @agentforge/example-servers), on fixture projects of
// different kinds and layouts. Each test asserts the facts its document must contain.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentforge, killRunning, limited } from "./cli.js";
import { exampleServer } from "./mcp-fixtures.js";

const FIXTURES = fileURLToPath(new URL("../fixtures", import.meta.url));
let base = "";
let roster = "";

interface DocsRun {
  document: string;
  calls: { identity: string; round: number; ok: boolean }[];
}

/** Document a folder offline; the run must finish with every tool call successful. */
async function documentFolder(folder: string): Promise<DocsRun> {
  const state = mkdtempSync(join(base, "state-"));
  const result = await agentforge(["docs", folder, "--json", "--config", roster, "--state-dir", state]);
  expect(`${result.code} ${result.stderr}`).toMatch(/^0 /);
  const json = JSON.parse(result.stdout) as DocsRun & { status: string };
  expect(json.status).toBe("finished");
  expect(json.calls.filter((c) => !c.ok)).toEqual([]);
  return json;
}

/** A fixture project copied to a fresh folder (the documents name only relative paths). */
function fixture(name: string): string {
  const target = join(base, name);
  cpSync(join(FIXTURES, name), target, { recursive: true });
  return target;
}

/** The text of one `## Section` of a document. */
function section(document: string, title: string): string {
  const start = document.indexOf(`## ${title}\n`);
  expect(start, `section ${title}`).toBeGreaterThan(-1);
  const end = document.indexOf("\n## ", start + 3);
  return document.slice(start, end === -1 ? undefined : end);
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "agentforge-offline-docs-"));
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
});
afterEach(killRunning);
afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

describe("the offline documentation describes what it read (real filesystem server)", () => {
  it("README heading followed directly by the description and an inline command; sources two levels down; a script elsewhere", async () => {
    const { document, calls } = await documentFolder(fixture("harbour-clock"));
    expect(document).toMatch(/^# harbour-clock\n/);
    expect(section(document, "Purpose")).toContain(
      "Harbour Clock prints the time of the next high tide for each harbour in a small table.",
    );
    const layout = section(document, "Layout");
    for (const name of [
      "src/",
      "harbour/",
      "clock.py",
      "tables.py",
      "tools/",
      "refresh-table.sh",
      "harbours.json",
    ])
      expect(layout).toContain(name);
    const keys = section(document, "Key files");
    expect(keys).toContain("`src/harbour/clock.py` — Command line entry: prints the next high tide");
    expect(keys).toContain(
      "`src/harbour/tables.py` — Reads the harbour table shipped in data/. Defines `load_table`, `Harbour`",
    );
    const run = section(document, "How to run");
    expect(run).toContain("`python3 src/harbour/clock.py --harbour brest` (README.md)");
    expect(run).toContain("`bash tools/refresh-table.sh` — Refreshes data/harbours.json");
    expect(document).not.toMatch(/no README or manifest|Nothing in the files read says how to run it/);
    // Several reads in one round, all inside the loop's rounds.
    const readsPerRound = new Map<number, number>();
    for (const call of calls.filter((c) => c.identity === "filesystem.read_text_file"))
      readsPerRound.set(call.round, (readsPerRound.get(call.round) ?? 0) + 1);
    expect(Math.max(...readsPerRound.values())).toBeGreaterThanOrEqual(3);
    expect(Math.max(...calls.map((c) => c.round))).toBeLessThanOrEqual(3);
  });

  it("a pnpm monorepo: setext title after comments and badges, packages/ and apps/ in the layout, pnpm from the lockfile", async () => {
    const { document } = await documentFolder(fixture("pnpm-monorepo"));
    expect(document).toMatch(/^# Tide Suite\n/);
    expect(section(document, "Purpose")).toContain(
      "Tide Suite is a set of small packages that compute, print and serve tide tables for harbours.",
    );
    const layout = section(document, "Layout");
    for (const name of ["apps/", "web/", "packages/", "core/", "cli/", "tide-cli.js", "pnpm-workspace.yaml"])
      expect(layout).toContain(name);
    expect(layout.indexOf("\npackages/")).toBeLessThan(layout.indexOf("\npackage.json"));
    const keys = section(document, "Key files");
    expect(keys).toContain("`pnpm-workspace.yaml` — pnpm workspace: `packages/*`, `apps/*`");
    expect(keys).toContain(
      "`packages/core/package.json` — npm package `@tide-suite/core` 1.2.0: Harmonic tide prediction",
    );
    expect(keys).toContain("`packages/core/src/index.js` — Harmonic tide prediction: sums the constituents");
    const run = section(document, "How to run");
    expect(run).toContain("Package manager: pnpm (from `pnpm-lock.yaml`).");
    expect(run).toContain("`pnpm install`");
    expect(run).toContain("`pnpm run build` — runs `pnpm -r build` (package.json scripts)");
    expect(run).toContain(
      "`tide` — the installed command (`packages/cli/src/tide-cli.js`) (packages/cli/package.json bin)",
    );
    expect(run).not.toMatch(/`npm (install|ci)`/);
  });

  it("a folder holding only a big node_modules: named and counted, not walked, never '0 files'", async () => {
    const root = join(base, "only-deps");
    for (let i = 0; i < 2000; i++) mkdirSync(join(root, "node_modules", `package-${i}`), { recursive: true });
    const { document, calls } = await documentFolder(root);
    const count = /`node_modules\/` \(about ([\d,]+) entries\)/.exec(document)?.[1];
    expect(count, document).toBeDefined();
    const estimate = Number(count?.replace(/,/g, ""));
    expect(estimate).toBeGreaterThanOrEqual(1500);
    expect(estimate).toBeLessThanOrEqual(2500);
    expect(section(document, "Layout")).toContain("Nothing but dependency and build folders.");
    expect(document).not.toMatch(/\b0 files|could not be listed/);
    // Listed once to be counted, never walked as a tree.
    expect(calls.filter((c) => c.identity === "filesystem.list_directory")).toHaveLength(2);
    expect(calls.filter((c) => c.identity === "filesystem.directory_tree")).toHaveLength(1);
  });

  it("no README or manifest: a script's doc comment is the purpose; a virtual environment is not walked", async () => {
    const root = join(base, "bare-script");
    for (let i = 0; i < 300; i++) {
      const pkg = join(root, ".venv", "lib", "python3.11", "site-packages", `pkg${i}`);
      mkdirSync(pkg, { recursive: true });
      writeFileSync(join(pkg, "__init__.py"), "x = 1\n");
    }
    writeFileSync(join(root, "requirements.txt"), "flask==3.0\n");
    writeFileSync(
      join(root, "app.py"),
      '"""Serves the harbour page."""\nfrom flask import Flask\n\nif __name__ == "__main__":\n    Flask(__name__).run()\n',
    );
    const { document } = await documentFolder(root);
    expect(section(document, "Purpose")).toContain(
      "Serves the harbour page. (from the doc comment of `app.py`)",
    );
    expect(section(document, "Layout")).toContain(".venv/  (not walked)");
    expect(document).not.toContain("pkg1");
    const run = section(document, "How to run");
    expect(run).toContain("`pip install -r requirements.txt` — installs the dependencies (requirements.txt)");
    expect(run).toContain("`python3 app.py` — Serves the harbour page. (app.py)");
  });

  it("odd file names (a line break, backticks, a leading dash) neither break the document nor the commands", async () => {
    const root = join(base, "odd-names");
    mkdirSync(join(root, "dir with space"), { recursive: true });
    writeFileSync(join(root, "README.md"), "# Odd\n\nA folder whose file names test the document.\n");
    writeFileSync(join(root, "line\nbreak.py"), '"""Reads lines."""\n');
    writeFileSync(join(root, "dir with space", "a `tick`.js"), "export const tick = 1;\n");
    writeFileSync(join(root, "-dash.sh"), "#!/bin/sh\n# Starts it.\n");
    const { document } = await documentFolder(root);
    const layout = section(document, "Layout");
    expect(layout).toContain("line\\nbreak.py");
    expect(layout.split("\n")).not.toContain("line");
    expect(layout).toContain("4 files in 1 folder");
    const keyFiles = section(document, "Key files");
    expect(keyFiles).toContain("- `line\\nbreak.py` — Reads lines.");
    expect(keyFiles).toContain("- ``dir with space/a `tick`.js`` — exports `tick`");
    expect(section(document, "How to run")).toContain("- `sh ./-dash.sh` — Starts it. (-dash.sh)");
    // Every line of the document is one of its own: no name spilled a line into it.
    for (const line of document.split("\n")) expect(line).not.toMatch(/^break\.py/);
  });

  it("Python (pyproject, uv), Go (go.mod + package doc comment) and Rust (Cargo) projects", async () => {
    const [python, go, rust] = await limited([
      () => documentFolder(fixture("python-pyproject")),
      () => documentFolder(fixture("go-module")),
      () => documentFolder(fixture("rust-crate")),
    ]);

    const py = python?.document ?? "";
    expect(py).toMatch(/^# tidecalc\n/);
    expect(section(py, "Purpose")).toContain(
      "Tide calculations for sailing clubs, from harmonic constants. (from `pyproject.toml`)",
    );
    expect(section(py, "Key files")).toContain("`src/tidecalc/model.py` — defines `TideModel`, `fit`");
    expect(section(py, "How to run")).toContain("`uv sync`");
    expect(section(py, "How to run")).toContain(
      "`uv run tidecalc` — calls `tidecalc.cli:main` (pyproject.toml [project.scripts])",
    );

    const gd = go?.document ?? "";
    expect(section(gd, "Purpose")).toContain("Package tideclock predicts high and low water for a harbour");
    expect(section(gd, "Key files")).toContain("`go.mod` — Go module `example.invalid/tideclock` go 1.22");
    expect(section(gd, "Key files")).toContain("`tideclock.go` — defines `Prediction`, `Next`");
    expect(section(gd, "How to run")).toContain(
      "`go run ./cmd/tidectl` — runs the main package (cmd/tidectl/main.go)",
    );
    expect(section(gd, "How to run")).toContain("Package manager: Go modules (from `go.sum`).");
    for (const name of ["cmd/", "tidectl/", "internal/", "harmonics/", "sum.go"])
      expect(section(gd, "Layout")).toContain(name);

    const rs = rust?.document ?? "";
    expect(section(rs, "Purpose")).toContain(
      "Prints a week of tide times for a harbour. (from `Cargo.toml`)",
    );
    expect(section(rs, "Key files")).toContain(
      "`src/lib.rs` — Tide prediction for the tide-table binary. Defines `Tide`, `week`",
    );
    expect(section(rs, "How to run")).toContain("Package manager: Cargo (from `Cargo.lock`).");
    expect(section(rs, "How to run")).toContain("`cargo run`");
  });

  it("reStructuredText README (badge, overlined title, literal block), setup.cfg, a package run with -m", async () => {
    const { document } = await documentFolder(fixture("python-rst"));
    expect(document).toMatch(/^# tidy\n/);
    expect(section(document, "Purpose")).toContain("Tidy cleans up tide logs before they are plotted.");
    expect(document).not.toContain("image::");
    const keyFiles = section(document, "Key files");
    expect(keyFiles).toContain(
      "`setup.cfg` — Python project `tidy` 0.1: Cleans tide logs before they are plotted.",
    );
    expect(keyFiles).toContain("`tidy/__init__.py` — Tidy: cleans tide logs. Exports `clean`, `drop_gaps`");
    expect(keyFiles).toContain("`tidy/rows.py` — defines `clean`, `drop_gaps`");
    const run = section(document, "How to run");
    expect(run).toContain("`python -m tidy logs/*.csv` (README.rst)");
    expect(run).toContain(
      "`python3 -m tidy` — Cleans the tide logs named on the command line. (tidy/__main__.py)",
    );
    expect(run).not.toContain("python3 tidy/__main__.py");
  });

  it("a Maven project without a README: purpose from pom.xml (not its parent's), classes, the wrapper's build", async () => {
    const { document } = await documentFolder(fixture("java-maven"));
    expect(document).toMatch(/^# tide-service\n/);
    expect(section(document, "Purpose")).toContain(
      "Serves the tide tables of a harbour over HTTP. (from `pom.xml`)",
    );
    const keyFiles = section(document, "Key files");
    expect(keyFiles).toContain("`pom.xml` — Maven project `tide-service` 1.4.0: Serves the tide tables");
    expect(keyFiles).toContain(
      "`src/main/java/tides/TideServer.java` — The HTTP server answering tide table requests. Defines `TideServer`, `Tide`",
    );
    expect(section(document, "How to run")).toContain(
      "`./mvnw package` — builds and tests the project (pom.xml)",
    );
    expect(document).not.toContain("harbour-parent");
  });

  it("a folder of documents without a README: its design document's purpose, documents as key files", async () => {
    const { document } = await documentFolder(fixture("docs-only"));
    expect(section(document, "Purpose")).toContain(
      "The harbour guide collects what a visiting sailor needs: tides, berths and the harbour office hours. (from `DESIGN.md`; there is no README)",
    );
    const keyFiles = section(document, "Key files");
    expect(keyFiles).toContain("`DESIGN.md` — Harbour guide: design: The harbour guide collects");
    expect(keyFiles).toContain("`notes/README.md` — Berths: Notes on the visitor berths of each harbour");
    expect(keyFiles).not.toContain("CHANGELOG.md");
    expect(section(document, "How to run")).toContain(
      "`npx markdown-link-check DESIGN.md` (CONTRIBUTING.md)",
    );
    expect(document).not.toContain("make release");
  });

  it("a README with a title and badges only: the purpose comes from the design document", async () => {
    const root = join(base, "docs-with-bare-readme");
    cpSync(join(FIXTURES, "docs-only"), root, { recursive: true });
    writeFileSync(
      join(root, "README.md"),
      "# Harbour guide\n\n[![ci](https://ci.invalid/b.svg)](https://ci.invalid)\n",
    );
    const { document } = await documentFolder(root);
    expect(document).toMatch(/^# Harbour guide\n/);
    expect(section(document, "Purpose")).toContain(
      "The harbour guide collects what a visiting sailor needs: tides, berths and the harbour office hours. (from `DESIGN.md`; the README does not say)",
    );
  });

  it("a tree larger than the replies hold: a bounded summary, every top-level folder first, the lockfile's manager", async () => {
    const root = join(base, "big-monorepo");
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write("README.md", "# Big\n\nA monorepo larger than one tree reply.\n");
    write(
      "package.json",
      JSON.stringify({ name: "big", private: true, scripts: { build: "turbo run build" } }),
    );
    write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
    write("pnpm-workspace.yaml", "packages:\n  - packages/*\n  - apps/*\n");
    for (const top of ["apps", "packages", "tooling"])
      for (let p = 0; p < 8; p++)
        for (let f = 0; f < 30; f++)
          write(`${top}/part-${p}/src/module-${f}.ts`, `export const value${f} = ${f};\n`);
    mkdirSync(join(root, "node_modules", ".pnpm"), { recursive: true });
    mkdirSync(join(root, ".git"), { recursive: true });
    const { document, calls } = await documentFolder(root);
    const layout = section(document, "Layout");
    expect(layout).toMatch(/At least [\d,]+ files in [\d,]+ folders seen/);
    for (const top of ["apps/", "packages/", "tooling/"])
      expect(layout).toMatch(new RegExp(`\\n${top}  \\(`));
    expect(layout.indexOf("tooling/")).toBeLessThan(layout.indexOf("README.md"));
    expect(layout).toContain("`node_modules/` (1 entry)");
    expect(layout.split("\n").length).toBeLessThan(120);
    const run = section(document, "How to run");
    expect(run).toContain("`pnpm install`");
    expect(run).not.toMatch(/`npm (install|ci)`/);
    expect(calls.length).toBeLessThanOrEqual(30);
    expect(calls.some((c) => c.identity === "filesystem.directory_tree" && c.round > 1)).toBe(true);
  });

  it("a section heading, a tagline, dev-container and fixture scripts; a Go module's indented install and root files", async () => {
    const write = (root: string, files: Record<string, string>) => {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      return root;
    };
    const js = write(join(base, "harbour-sign"), {
      "README.md": "## Description\n\n… so better sign this\n\n## Usage\n\nSee the docs.\n",
      "package.json": JSON.stringify({
        name: "harbour-sign",
        description: "Signs harbour release files with your key.",
      }),
      "index.js": "export function sign() {}\n",
      ".devcontainer/post-create.sh": "#!/bin/bash\n# Installs the tools of the container.\n",
      "test/fixtures/hello.sh": "#!/bin/sh\necho hello\n",
    });
    const go = write(join(base, "tidesign"), {
      "README.md":
        "# tidesign\n\nTidesign signs tide tables.\n\nInstall it with:\n\n    go get example.invalid/tidesign@latest\n",
      "go.mod": "module example.invalid/tidesign\n\ngo 1.22\n",
      "sign.go": "package tidesign\n\nfunc Sign() {}\n",
      "verify.go": "package tidesign\n\nfunc Verify() {}\n",
      "sign_test.go": "package tidesign\n",
      "internal/keys/keys.go": "package keys\n",
    });
    const [signed, tides] = await limited([() => documentFolder(js), () => documentFolder(go)]);

    const doc = signed?.document ?? "";
    expect(doc).toMatch(/^# harbour-sign\n/);
    expect(section(doc, "Purpose")).toContain(
      "Signs harbour release files with your key. (from `package.json`)",
    );
    const run = section(doc, "How to run");
    expect(run).not.toMatch(/post-create|hello\.sh/);
    expect(run).toContain("`npm install harbour-sign` — adds it to a project (package.json name)");
    const keys = section(doc, "Key files");
    expect(keys.indexOf("`index.js`")).toBeGreaterThan(-1);
    expect(keys.indexOf("`index.js`")).toBeLessThan(keys.indexOf("`.devcontainer/post-create.sh`"));

    const gd = tides?.document ?? "";
    expect(section(gd, "How to run")).toContain("`go get example.invalid/tidesign@latest` (README.md)");
    const goKeys = section(gd, "Key files");
    for (const file of ["`sign.go`", "`verify.go`"]) {
      expect(goKeys).toContain(file);
      expect(goKeys.indexOf(file)).toBeLessThan(goKeys.indexOf("`sign_test.go`"));
    }
  });
});
