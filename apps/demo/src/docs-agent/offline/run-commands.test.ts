import { describe, expect, it } from "vitest";
import { type Manifest, parseManifest } from "./manifests.js";
import { runCommands } from "./run-commands.js";

function inputs(reads: Record<string, string>, extraFiles: string[] = []) {
  const manifests = new Map<string, Manifest>();
  for (const [file, text] of Object.entries(reads)) {
    const manifest = parseManifest(file, text);
    if (manifest) manifests.set(file, manifest);
  }
  return { files: [...Object.keys(reads), ...extraFiles], reads: new Map(Object.entries(reads)), manifests };
}

describe("how to run, each command with where it came from", () => {
  it("lockfile install, root scripts, workspace packages' commands and scripts (yarn)", () => {
    const { managers, commands } = runCommands(
      inputs(
        {
          "package.json": '{"name": "root", "scripts": {"build": "tsc"}}',
          "packages/cli/package.json":
            '{"name": "@x/cli", "bin": {"xcli": "./bin.js"}, "scripts": {"lint": "x", "dev": "node ."}}',
        },
        ["yarn.lock"],
      ),
    );
    expect(managers.map((m) => m.name)).toEqual(["Yarn"]);
    expect(commands).toEqual([
      { command: "yarn install", source: "yarn.lock", note: "installs the dependencies" },
      { command: "yarn build", source: "package.json scripts", note: "runs `tsc`" },
      {
        command: "xcli",
        source: "packages/cli/package.json bin",
        note: "the installed command (`packages/cli/bin.js`)",
      },
      {
        command: "yarn workspace @x/cli dev",
        source: "packages/cli/package.json scripts",
        note: "runs `node .`",
      },
    ]);
  });

  it("Go main packages, Cargo binaries, Python __main__ scripts, Makefile targets and shell scripts", () => {
    const go = runCommands(
      inputs({
        "go.mod": "module a.invalid/m\n",
        "main.go": "package main\n",
        "cmd/tool/main.go": "package main\n",
        "lib.go": "package m\n",
      }),
    ).commands.map((c) => c.command);
    expect(go).toEqual(["go run .", "go run ./cmd/tool", "go test ./..."]);

    const cargo = runCommands(
      inputs({ "Cargo.toml": '[package]\nname = "t"\n[[bin]]\nname = "a"\n[[bin]]\nname = "b"\n' }),
    );
    expect(cargo.commands.map((c) => c.command)).toEqual([
      "cargo run --bin a",
      "cargo run --bin b",
      "cargo test",
    ]);

    const misc = runCommands(
      inputs({
        Makefile: "all: run\nrun:\n\tpython3 app.py\n",
        "app.py": '"""Starts the app."""\nif __name__ == "__main__":\n    main()\n',
        "scripts/seed.sh": "#!/bin/sh\n# Seeds the database.\n",
        "src/tidy/__main__.py": '"""Cleans tide logs."""\nfrom . import clean\n',
        "my tool/__main__.py": 'if __name__ == "__main__":\n    pass\n',
        "pyproject.toml": '[project]\nname = "app"\n',
      }),
    );
    expect(misc.commands).toEqual([
      { command: "pip install .", source: "pyproject.toml", note: "installs the project and its commands" },
      { command: "make all", source: "Makefile" },
      { command: "make run", source: "Makefile" },
      { command: "python3 app.py", source: "app.py", note: "Starts the app." },
      { command: "sh scripts/seed.sh", source: "scripts/seed.sh", note: "Seeds the database." },
      { command: "python3 -m tidy", source: "src/tidy/__main__.py", note: "Cleans tide logs." },
      { command: "python3 'my tool/__main__.py'", source: "my tool/__main__.py" },
    ]);
  });

  it("npm's lifecycle scripts and pre/post hooks are not commands; a script names its hooks", () => {
    const scripts = JSON.stringify({
      name: "lib",
      scripts: {
        prebuild: "rm -rf dist",
        build: "tsc",
        postbuild: "node check.js",
        prestart: "npm run build",
        prepare: "husky",
        prepublishOnly: "npm test",
        preversion: "npm test",
        postinstall: "node setup.js",
        lint: "eslint .",
        postlint: "echo linted",
        pretty: "prettier .",
      },
    });
    const { commands } = runCommands(inputs({ "package.json": scripts }, ["package-lock.json"]));
    expect(commands.map((c) => [c.command, c.note])).toEqual([
      ["npm ci", "installs the dependencies"],
      ["npm run build", "runs `tsc` (`prebuild` runs before it and `postbuild` after it)"],
      ["npm run lint", "runs `eslint .` (`postlint` runs after it)"],
      ["npm run pretty", "runs `prettier .`"],
    ]);
  });

  it("Deno tasks; a Compose file over a Dockerfile", () => {
    const deno = runCommands(
      inputs({ "deno.json": '{"tasks":{"dev":"deno run -A main.ts"}}' }, ["Dockerfile"]),
    );
    expect(deno.commands.map((c) => `${c.command} — ${c.note} (${c.source})`)).toEqual([
      "deno task dev — runs `deno run -A main.ts` (deno.json tasks)",
      "docker build . — builds the image (Dockerfile)",
    ]);
    const stack = runCommands(inputs({}, ["Dockerfile", "compose.yaml"]));
    expect(stack.commands.map((c) => c.command)).toEqual(["docker compose up"]);
  });

  it("Maven, Gradle (their wrappers when present) and CMake builds", () => {
    const jvm = runCommands(inputs({ "pom.xml": "<project/>" }, ["mvnw", "build.gradle.kts", "gradlew"]));
    expect(jvm.commands.map((c) => `${c.command} (${c.source})`)).toEqual([
      "./mvnw package (pom.xml)",
      "./gradlew build (build.gradle.kts)",
    ]);
    const c = runCommands(inputs({ "CMakeLists.txt": "project(t)\n" }));
    expect(c.commands.map((x) => x.command)).toEqual(["cmake -S . -B build && cmake --build build"]);
  });

  it("requirements.txt and a Gemfile without their lockfiles", () => {
    const { commands } = runCommands(inputs({}, ["requirements.txt", "Gemfile", "app.py"]));
    expect(commands.map((c) => `${c.command} (${c.source})`)).toEqual([
      "pip install -r requirements.txt (requirements.txt)",
      "bundle install (Gemfile)",
    ]);
    const locked = runCommands(inputs({}, ["Gemfile", "Gemfile.lock"]));
    expect(locked.commands.map((c) => c.command)).toEqual(["bundle install"]);
  });

  it("a package as published: the README's commands, then adding it by name, then its dependencies", () => {
    const npm = runCommands(
      inputs({
        "package.json": '{"name": "tide", "scripts": {"test": "node --test"}, "bin": "./cli.js"}',
        "README.md": "# tide\n\nTide tables.\n\n```js\nimport tide from 'tide'\n```\n",
      }),
    ).commands;
    expect(npm.map((c) => [c.command, c.source])).toEqual([
      ["npm install tide", "package.json name"],
      ["npm install", "package.json, no lockfile"],
      ["npm run test", "package.json scripts"],
      ["tide", "package.json bin"],
    ]);
    // Said by the README already (any package manager): not said twice; a private package is never.
    const said = runCommands(
      inputs({
        "package.json": '{"name": "tide"}',
        "README.md": "# tide\n\n```sh\npnpm add tide@next\n```\n",
      }),
    ).commands.map((c) => c.command);
    expect(said).toEqual(["pnpm add tide@next", "npm install"]);
    const secret = runCommands(inputs({ "package.json": '{"name": "app", "private": true}' })).commands;
    expect(secret.map((c) => c.command)).toEqual(["npm install"]);
  });

  it("a library crate: no `cargo run`, its dependency line from the README or `cargo add`", () => {
    const withLine = runCommands(
      inputs(
        {
          "Cargo.toml": '[package]\nname = "tide"\n',
          "README.md":
            '# tide\n\n```toml\n[dependencies]\ntide = "1.0"\n```\n\n```console\nError: no table\nCaused by:\n    missing\n```\n',
        },
        ["src/lib.rs"],
      ),
    ).commands;
    expect(withLine.map((c) => c.command)).toEqual(['tide = "1.0"', "cargo test"]);
    const bare = runCommands(inputs({ "Cargo.toml": '[package]\nname = "tide"\n' }, ["src/lib.rs"])).commands;
    expect(bare.map((c) => c.command)).toEqual(["cargo add tide", "cargo test"]);
    const binary = runCommands(inputs({ "Cargo.toml": '[package]\nname = "t"\n' }, ["src/main.rs"])).commands;
    expect(binary.map((c) => c.command)).toEqual(["cargo run", "cargo test"]);
  });

  it("a Go library is added with go get; a Python distribution is installed by name, its commands listed", () => {
    const go = runCommands(
      inputs({ "go.mod": "module example.invalid/tide\n", "tide.go": "// Package tide.\npackage tide\n" }),
    ).commands.map((c) => c.command);
    expect(go).toEqual(["go get example.invalid/tide@latest", "go test ./..."]);
    const python = runCommands(
      inputs({
        "tide-1.0.egg-info/PKG-INFO": "Name: tide\nSummary: Tides\n",
        "tide-1.0.egg-info/entry_points.txt": "[console_scripts]\ntide = tide.cli:main\n",
        "tide/__init__.py": "",
        "tide/cli.py": 'if __name__ == "__main__":\n    main()\n',
      }),
    ).commands;
    expect(python.map((c) => [c.command, c.note])).toEqual([
      ["pip install tide", "installs the distribution"],
      ["tide", "the installed command (calls `tide.cli:main`)"],
      ["python3 -m tide.cli", undefined],
    ]);
  });

  it("Ant's default target; scripts of tests, fixtures and dev containers are not ways to run it", () => {
    const commands = runCommands(
      inputs({
        "build.xml": '<project name="tide" default="jar"></project>',
        ".devcontainer/post-create.sh": "#!/bin/bash\n# Sets up the container.\n",
        "test/fixtures/hello.sh": "#!/bin/sh\necho hello\n",
        "scripts/release.sh": "#!/bin/sh\n# Tags a release.\n",
      }),
    ).commands;
    expect(commands.map((c) => [c.command, c.note])).toEqual([
      ["ant", "runs the default target `jar`"],
      ["sh scripts/release.sh", "Tags a release."],
    ]);
  });
});
