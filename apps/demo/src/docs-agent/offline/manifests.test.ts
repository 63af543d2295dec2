import { describe, expect, it } from "vitest";
import { javascriptManager, packageManagersFrom } from "./lockfiles.js";
import { describeManifest, parseManifest } from "./manifests.js";

describe("manifests", () => {
  it("package.json, even when the read was cut", () => {
    const text = JSON.stringify(
      {
        name: "@s/app",
        version: "1.0.0",
        description: "An app.",
        bin: "./cli.js",
        scripts: { dev: "vite" },
        dependencies: { a: "1" },
      },
      null,
      2,
    );
    const cut = `${text.slice(0, text.indexOf('"dependencies"') + 10)}... [40 characters truncated]`;
    const manifest = parseManifest("package.json", cut);
    expect(manifest).toMatchObject({
      name: "@s/app",
      description: "An app.",
      scripts: [["dev", "vite"]],
      bins: [["app", "./cli.js"]],
    });
    expect(describeManifest(manifest!)).toBe("npm package `@s/app` 1.0.0: An app.");
    // A nested package.json that only sets the module type says so, not a bare "npm package".
    expect(describeManifest(parseManifest("browser/package.json", '{"type":"module"}')!)).toBe(
      "npm package settings, without a name or description",
    );
    expect(describeManifest(parseManifest("deno.json", '{"tasks":{"dev":"deno run main.ts"}}')!)).toBe(
      "Deno project settings, tasks `dev`",
    );
  });

  it("pyproject.toml: [project] and [project.scripts], or Poetry's tables", () => {
    const pep621 =
      '[project]\nname = "tidecalc"\nversion = "0.4.1"\ndescription = "Tide maths."\ndependencies = [\n  "numpy",\n]\n\n[project.scripts]\ntidecalc = "tidecalc.cli:main"\n';
    expect(parseManifest("pyproject.toml", pep621)).toMatchObject({
      kind: "Python project",
      name: "tidecalc",
      description: "Tide maths.",
      bins: [["tidecalc", "tidecalc.cli:main"]],
    });
    const poetry =
      '[tool.poetry]\nname = \'old\'\ndescription = """Multi\nline."""\n[tool.poetry.scripts]\nold = \'old:run\'\n';
    expect(parseManifest("pyproject.toml", poetry)).toMatchObject({
      name: "old",
      description: "Multi\nline.",
      bins: [["old", "old:run"]],
    });
  });

  it("Cargo.toml with [[bin]] tables, go.mod, composer.json, pnpm-workspace.yaml", () => {
    const cargo =
      '[package]\nname = "tide"\ndescription = "Tides."  # short\n\n[[bin]]\nname = "a"\npath = "src/a.rs"\n\n[[bin]]\nname = "b"\n';
    expect(parseManifest("Cargo.toml", cargo)).toMatchObject({
      name: "tide",
      description: "Tides.",
      bins: [
        ["a", "src/a.rs"],
        ["b", ""],
      ],
    });
    expect(parseManifest("go.mod", "module example.invalid/x\n\ngo 1.22\n")).toMatchObject({
      name: "example.invalid/x",
      version: "go 1.22",
    });
    expect(
      parseManifest(
        "composer.json",
        '{"name": "v/p", "description": "PHP.", "scripts": {"test": "phpunit"}}',
      ),
    ).toMatchObject({
      kind: "PHP package",
      scripts: [["test", "phpunit"]],
    });
    const workspace = parseManifest(
      "pnpm-workspace.yaml",
      "packages:\n  - packages/*\n  - 'apps/*'\ncatalog:\n  a: 1\n",
    );
    expect(describeManifest(workspace!)).toBe("pnpm workspace: `packages/*`, `apps/*`");
    expect(parseManifest("notes.txt", "x")).toBeUndefined();
  });
});

describe("the package manager from the lockfile", () => {
  it.each([
    ["pnpm-lock.yaml", "pnpm", "pnpm install"],
    ["yarn.lock", "Yarn", "yarn install"],
    ["package-lock.json", "npm", "npm ci"],
    ["bun.lockb", "Bun", "bun install"],
    ["bun.lock", "Bun", "bun install"],
    ["uv.lock", "uv", "uv sync"],
    ["poetry.lock", "Poetry", "poetry install"],
    ["Cargo.lock", "Cargo", "cargo build"],
    ["go.sum", "Go modules", "go mod download"],
    ["composer.lock", "Composer", "composer install"],
  ])("%s → %s", (lockfile, name, install) => {
    expect(packageManagersFrom(["README.md", lockfile])).toMatchObject([
      { name, install, evidence: lockfile },
    ]);
  });

  it("JavaScript scripts run with the lockfile's manager, else packageManager, else npm", () => {
    expect(javascriptManager(["pnpm-lock.yaml"]).run?.("build")).toBe("pnpm run build");
    expect(javascriptManager([], "yarn@4.1.0")).toMatchObject({
      name: "Yarn",
      evidence: "package.json packageManager",
    });
    expect(javascriptManager([])).toMatchObject({ name: "npm", install: "npm install" });
  });

  it("pom.xml (not its parent's or dependencies' ids), build.gradle and CMakeLists.txt", () => {
    const pom = [
      "<project>",
      "  <parent><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent>",
      "  <!-- <artifactId>commented</artifactId> -->",
      "  <artifactId>tide-service</artifactId>",
      "  <version>1.4.0</version>",
      "  <name>tide-service</name>",
      "  <description>Serves tide tables &amp; harbour data.</description>",
      "  <dependencies><dependency><artifactId>x</artifactId></dependency></dependencies>",
      "</project>",
    ].join("\n");
    expect(describeManifest(parseManifest("pom.xml", pom)!)).toBe(
      "Maven project `tide-service` 1.4.0: Serves tide tables & harbour data.",
    );
    // Without a name or description of its own, a pom takes none from its organisation or developers.
    const bare =
      "<project><organization><name>Harbour Office</name></organization><artifactId>t</artifactId></project>";
    expect(describeManifest(parseManifest("pom.xml", bare)!)).toBe("Maven project `t`");
    const gradle = "plugins { id 'java' }\nversion = '0.3.0'\ndescription = 'Tide tables for the JVM'\n";
    expect(describeManifest(parseManifest("build.gradle", gradle)!)).toBe(
      "Gradle build 0.3.0: Tide tables for the JVM",
    );
    const cmake =
      'cmake_minimum_required(VERSION 3.20)\nproject(tideprint VERSION 2.1 DESCRIPTION "Prints tide tables" LANGUAGES C)\n';
    expect(describeManifest(parseManifest("CMakeLists.txt", cmake)!)).toBe(
      "CMake project `tideprint` 2.1: Prints tide tables",
    );
  });

  it("package.json entry points: the root export first, then main/types, subpath exports, bins; private", () => {
    const manifest = parseManifest(
      "package.json",
      JSON.stringify({
        name: "tide",
        private: true,
        main: "./dist/index.cjs",
        types: "./dist/index.d.ts",
        exports: {
          ".": { types: "./dist/index.d.ts", import: "./dist/index.js", require: "./dist/index.cjs" },
          "./util": "./dist/util.js",
          "./package.json": "./package.json",
          "./locales/*": "./dist/locales/*.js",
        },
        bin: { tide: "./bin/tide.js" },
      }),
    );
    expect(manifest?.entries).toEqual([
      "dist/index.d.ts",
      "dist/index.js",
      "dist/index.cjs",
      "dist/util.js",
      "bin/tide.js",
    ]);
    expect(manifest?.isPrivate).toBe(true);
    // npm's default entry point when nothing names one.
    expect(parseManifest("package.json", '{"name":"old"}')?.entries).toEqual(["index.js"]);
  });

  it("Cargo.toml: the library (its path, else src/lib.rs), the binaries, src/main.rs", () => {
    expect(
      parseManifest("Cargo.toml", '[package]\nname = "t"\n[[bin]]\nname = "a"\npath = "src/a.rs"\n')?.entries,
    ).toEqual(["src/lib.rs", "src/a.rs", "src/main.rs"]);
  });

  it("a Python distribution's metadata: headers, the README as its body (or the older indented header)", () => {
    const pkgInfo =
      "Metadata-Version: 2.1\nName: tide-tables\nVersion: 1.2\nSummary: Tide tables for harbours\nClassifier: X\n\nTide tables\n===========\n\nPredicts tides.\n";
    const manifest = parseManifest("tide_tables-1.2.egg-info/PKG-INFO", pkgInfo);
    expect(manifest).toMatchObject({
      kind: "Python distribution",
      name: "tide-tables",
      version: "1.2",
      description: "Tide tables for harbours",
      readme: "Tide tables\n===========\n\nPredicts tides.\n",
    });
    expect(manifest?.entries.slice(0, 2)).toEqual(["tide_tables/__init__.py", "tide_tables.py"]);
    expect(describeManifest(manifest!)).toBe(
      "Python distribution `tide-tables` 1.2: Tide tables for harbours",
    );
    const old =
      "Metadata-Version: 1.1\nName: t\nDescription: First line\n        second line\n        \n        third\n";
    expect(parseManifest("PKG-INFO", old)?.readme).toBe("First line\nsecond line\n\nthird");
    // METADATA is a wheel's only inside its .dist-info folder; entry_points.txt inside egg/dist-info.
    expect(parseManifest("docs/METADATA", "Name: x\n")).toBeUndefined();
    const entry = parseManifest(
      "t-1.dist-info/entry_points.txt",
      "[console_scripts]\ntide = tide.cli:main\n\n[other]\nx = y\n",
    );
    expect(entry?.bins).toEqual([["tide", "tide.cli:main"]]);
    expect(describeManifest(entry!)).toBe("installed commands `tide` (`tide.cli:main`)");
  });

  it("Ant's build.xml and a JAR manifest's main class", () => {
    const ant = parseManifest(
      "build.xml",
      '<!-- Ant file <project name="not-this"> -->\n<project name="tide" default="compile" basedir=".">\n<target name="compile"/>\n</project>\n',
    );
    expect(ant).toMatchObject({ kind: "Ant build", name: "tide", defaultTarget: "compile" });
    expect(describeManifest(ant!)).toBe("Ant build `tide`, default target `compile`");
    expect(parseManifest("docs/build.xml", "<html></html>")).toBeUndefined();
    const jar = parseManifest("src/Manifest.app", "Manifest-Version: 1.0\nMain-Class: tide.Main$Inner\n");
    expect(jar?.entries).toEqual(["**/tide/Main.java"]);
    expect(describeManifest(jar!)).toBe("JAR manifest: main class `tide.Main$Inner`");
    expect(parseManifest("Manifest.txt", "just words")).toBeUndefined();
  });
});
