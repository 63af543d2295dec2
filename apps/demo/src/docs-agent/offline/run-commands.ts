// How to run a project, from everything read: the lockfile's install command, README code, manifest
// scripts and entry points, Makefile targets, Go main packages, shell scripts — each with its source.
import { SECONDARY } from "./key-files.js";
import { javascriptManager, type PackageManager, packageManagersFrom } from "./lockfiles.js";
import type { Manifest } from "./manifests.js";
import { code, shellPath, shellWord } from "./markdown.js";
import { README_NAME, type RunCommand, readmeCommands } from "./readme.js";
import { docComment, makeTargets } from "./summarize-file.js";

/** The scripts of a workspace package worth naming (its others are one look at its package.json away). */
const WORKSPACE_SCRIPTS: ReadonlySet<string> = new Set(["start", "dev", "serve", "build", "test"]);

/** Scripts npm runs by itself around install, pack, publish and version: never a command to type. */
const NPM_LIFECYCLE: ReadonlySet<string> = new Set([
  "preinstall",
  "install",
  "postinstall",
  "preprepare",
  "prepare",
  "postprepare",
  "prepublish",
  "prepublishOnly",
  "publish",
  "postpublish",
  "prepack",
  "postpack",
  "preversion",
  "version",
  "postversion",
  "dependencies",
]);

/**
 * The scripts a user runs, each with a note naming its `pre`/`post` hooks: the hooks themselves and
 * npm's lifecycle scripts are left out (npm runs them; listing them as commands would mislead).
 */
export function commandScripts(scripts: readonly [string, string][]): [string, string, string][] {
  const names = new Set(scripts.map(([name]) => name));
  const hookOf = (name: string) => /^(?:pre|post)(.+)$/.exec(name)?.[1];
  const out: [string, string, string][] = [];
  for (const [name, command] of scripts) {
    if (NPM_LIFECYCLE.has(name)) continue;
    const target = hookOf(name);
    if (target !== undefined && (names.has(target) || ["test", "start", "stop", "restart"].includes(target)))
      continue;
    const pre = names.has(`pre${name}`) ? code(`pre${name}`) : undefined;
    const post = names.has(`post${name}`) ? code(`post${name}`) : undefined;
    const hooks =
      pre && post
        ? ` (${pre} runs before it and ${post} after it)`
        : pre
          ? ` (${pre} runs before it)`
          : post
            ? ` (${post} runs after it)`
            : "";
    out.push([name, command, hooks]);
  }
  return out;
}

/** Top-level documents about building and running (their code blocks are commands too). */
const RUNNING_DOC =
  /^(contributing|install(ing|ation)?|usage|getting[-_ ]?started|development|developing|hacking|building|build|quickstart)\.(md|markdown|rst|txt)$/i;

/** What the commands are gathered from. */
export interface RunInputs {
  /** Every file seen (relative paths). */
  files: readonly string[];
  /** Files read successfully: relative path → text. */
  reads: ReadonlyMap<string, string>;
  /** Manifests read, by relative path. */
  manifests: ReadonlyMap<string, Manifest>;
  /** A README carried by a manifest (a Python distribution's description), when no README file was read. */
  readme?: { file: string; text: string };
}

/** The commands, in reading order, each once (later sources of the same command are merged in). */
export function runCommands(inputs: RunInputs): { managers: PackageManager[]; commands: RunCommand[] } {
  const rootFiles = inputs.files.filter((f) => !f.includes("/"));
  const managers = packageManagersFrom(rootFiles);
  const out: RunCommand[] = [];
  const add = (command: string, source: string, note?: string) => {
    const same = out.find((c) => c.command === command);
    if (same) {
      if (!same.source.split("; ").includes(source)) same.source += `; ${source}`;
      return;
    }
    out.push({ command, source, ...(note ? { note } : {}) });
  };
  const pkg = inputs.manifests.get("package.json");
  const js = pkg ? javascriptManager(rootFiles, pkg.packageManager) : undefined;
  for (const manager of managers)
    add(manager.install, manager.evidence, manager.installNote ?? "installs the dependencies");
  // Without a lockfile (a package as published), installing its dependencies comes after what its
  // README says and after installing the package itself.
  const lockless = js && !managers.includes(js) ? js : undefined;
  const pyproject = inputs.manifests.get("pyproject.toml");
  const python = managers.find((m) => ["uv", "Poetry", "PDM", "Pipenv"].includes(m.name));
  const setup = ["pyproject.toml", "setup.cfg", "setup.py"].find((f) => rootFiles.includes(f));
  if (setup && !python) add("pip install .", setup, "installs the project and its commands");
  if (!setup && !python && rootFiles.includes("requirements.txt"))
    add("pip install -r requirements.txt", "requirements.txt", "installs the dependencies");
  if (rootFiles.includes("Gemfile") && !managers.some((m) => m.name === "Bundler"))
    add("bundle install", "Gemfile", "installs the dependencies");

  // The README, and the top-level documents whose subject is running the project.
  for (const [file, text] of inputs.reads)
    if (README_NAME.test(file) || RUNNING_DOC.test(file))
      for (const c of readmeCommands(text, file)) add(c.command, c.source, c.note);
  if (inputs.readme && ![...inputs.reads.keys()].some((f) => README_NAME.test(f)))
    for (const c of readmeCommands(inputs.readme.text, inputs.readme.file)) add(c.command, c.source, c.note);

  // A library is added to a project by its name: said once, when the README does not already say how.
  const said = (pattern: RegExp) => out.some((c) => pattern.test(c.command));
  const word = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // (Only a package as published: a lockfile or workspaces mean a project's own checkout.)
  const published = (manager: string) => !managers.some((m) => m.name === manager);
  if (pkg?.name && !pkg.isPrivate && pkg.workspaces.length === 0 && managers.every((m) => !m.run)) {
    const name = word(pkg.name);
    if (!said(new RegExp(`\\b(npm|pnpm|yarn|bun)\\s+(i|install|add)\\b.*(^|\\s)${name}(@\\S*)?(\\s|$)`)))
      add(`npm install ${shellWord(pkg.name)}`, "package.json name", "adds it to a project");
  }
  const crate = inputs.manifests.get("Cargo.toml");
  const library = crate && (crate.entries[0] !== "src/lib.rs" || inputs.files.includes("src/lib.rs"));
  if (crate?.name && library && published("Cargo") && crate.workspaces.length === 0) {
    const name = word(crate.name);
    if (!said(new RegExp(`^${name}\\s*=|\\bcargo add\\s+${name}\\b`)))
      add(`cargo add ${shellWord(crate.name)}`, "Cargo.toml name", "adds it to a crate's dependencies");
  }
  const module = inputs.manifests.get("go.mod")?.name;
  const goMain = [...inputs.reads].some(
    ([file, text]) => file.endsWith(".go") && !file.includes("/") && /^package\s+main\b/m.test(text),
  );
  if (module && !goMain && inputs.files.some((f) => f.endsWith(".go") && !f.includes("/"))) {
    if (!said(new RegExp(`\\bgo (get|install)\\b.*\\s${word(module)}(@\\S*)?(\\s|$)`)))
      add(`go get ${shellWord(module)}@latest`, "go.mod module", "adds the module to a Go project");
  }
  for (const [file, manifest] of inputs.manifests) {
    if (manifest.kind !== "Python distribution" || !manifest.name || !/^([^/]+\/)?[^/]+$/.test(file))
      continue;
    if (!said(new RegExp(`\\bpip3? install\\b.*\\s${word(manifest.name)}([=<>~!\\[ ]|$)`, "i")))
      add(`pip install ${shellWord(manifest.name)}`, `${file} name`, "installs the distribution");
  }
  if (lockless) add(lockless.install, lockless.evidence, "installs the dependencies");

  if (pkg && js?.run) {
    for (const [name, command, hooks] of commandScripts(pkg.scripts))
      add(js.run(shellWord(name)), "package.json scripts", `runs ${code(command)}${hooks}`);
    for (const [name, target] of pkg.bins)
      add(shellWord(name), "package.json bin", `the installed command (${code(target)})`);
  }
  // Workspace packages: their installed commands and scripts, run from the root.
  for (const [file, manifest] of inputs.manifests) {
    if (!file.includes("/") || manifest.file !== "package.json" || !js?.run) continue;
    const where = file.slice(0, file.lastIndexOf("/"));
    for (const [name, target] of manifest.bins)
      add(
        shellWord(name),
        `${file} bin`,
        `the installed command (${code(`${where}/${target.replace(/^\.\//, "")}`)})`,
      );
    const main = commandScripts(manifest.scripts)
      .filter(([name]) => WORKSPACE_SCRIPTS.has(name))
      .slice(0, 2);
    for (const [name, command, hooks] of main) {
      const run =
        js.name === "pnpm" && manifest.name
          ? `pnpm --filter ${shellWord(manifest.name)} run ${shellWord(name)}`
          : js.name === "Yarn" && manifest.name
            ? `yarn workspace ${shellWord(manifest.name)} ${shellWord(name)}`
            : `npm run ${shellWord(name)} --workspace ${shellPath(where)}`;
      add(run, `${file} scripts`, `runs ${code(command)}${hooks}`);
    }
  }
  const deno = inputs.manifests.get("deno.json");
  if (deno)
    for (const [name, command] of deno.scripts)
      add(`deno task ${shellWord(name)}`, "deno.json tasks", `runs ${code(command)}`);
  const composer = inputs.manifests.get("composer.json");
  if (composer) {
    for (const [name, command] of composer.scripts)
      add(`composer run-script ${shellWord(name)}`, "composer.json scripts", `runs ${code(command)}`);
    for (const [name] of composer.bins) add(shellPath(`vendor/bin/${name}`), "composer.json bin");
  }
  if (pyproject) {
    const prefix = python?.name === "uv" ? "uv run " : python?.name === "Poetry" ? "poetry run " : "";
    for (const [name, target] of pyproject.bins)
      add(`${prefix}${shellWord(name)}`, "pyproject.toml [project.scripts]", `calls ${code(target)}`);
  }
  const cargo = inputs.manifests.get("Cargo.toml");
  if (cargo) {
    // `cargo run` only for a crate with a binary (a library has none to run).
    if (cargo.bins.length > 1)
      for (const [name] of cargo.bins) add(`cargo run --bin ${shellWord(name)}`, "Cargo.toml [[bin]]");
    else if (cargo.bins.length === 1 || inputs.files.includes("src/main.rs"))
      add("cargo run", "Cargo.toml", "builds and runs the crate's binary");
    add("cargo test", "Cargo.toml");
  }
  // A Python distribution's installed commands (entry_points.txt).
  for (const [file, manifest] of inputs.manifests)
    if (manifest.kind === "Python entry points")
      for (const [name, target] of manifest.bins)
        add(shellWord(name), file, `the installed command (calls ${code(target)})`);
  if (inputs.manifests.has("go.mod")) {
    const mains = [...inputs.reads].filter(
      ([file, text]) => file.endsWith(".go") && /^package\s+main\b/m.test(text),
    );
    for (const [file] of mains) {
      const dir = file.includes("/") ? `./${file.slice(0, file.lastIndexOf("/"))}` : ".";
      add(`go run ${shellPath(dir)}`, file, "runs the main package");
    }
    add("go test ./...", "go.mod");
  }
  // JVM and C/C++ builds, from the build file at the root (the wrapper script when there is one).
  if (rootFiles.includes("pom.xml")) {
    const mvn = rootFiles.includes("mvnw") ? "./mvnw" : "mvn";
    add(`${mvn} package`, "pom.xml", "builds and tests the project");
  }
  const ant = inputs.manifests.get("build.xml");
  if (ant?.kind === "Ant build")
    add(
      "ant",
      "build.xml",
      ant.defaultTarget ? `runs the default target ${code(ant.defaultTarget)}` : "runs the default target",
    );
  const gradle = rootFiles.find((f) => /^(build|settings)\.gradle(\.kts)?$/.test(f));
  if (gradle) {
    const run = rootFiles.includes("gradlew") ? "./gradlew" : "gradle";
    add(`${run} build`, gradle, "builds and tests the project");
  }
  // Containers: the compose file runs the whole stack; else the Dockerfile builds the image.
  const compose = rootFiles.find((f) => /^(docker-)?compose\.ya?ml$/.test(f));
  if (compose) add("docker compose up", compose, "starts the services it defines");
  else if (rootFiles.includes("Dockerfile")) add("docker build .", "Dockerfile", "builds the image");
  if (rootFiles.includes("CMakeLists.txt"))
    add("cmake -S . -B build && cmake --build build", "CMakeLists.txt", "configures and builds");
  for (const [file, text] of inputs.reads) {
    const base = file.split("/").at(-1) ?? file;
    if (/^(makefile|gnumakefile)$/i.test(base) && !file.includes("/"))
      for (const target of makeTargets(text)) add(`make ${target}`, file);
    if (/^justfile$/i.test(base) && !file.includes("/"))
      for (const target of makeTargets(text)) add(`just ${target}`, file);
  }
  for (const [file, text] of inputs.reads) {
    // Scripts of tests, fixtures, CI and dev containers are not ways to run the project.
    if (SECONDARY.test(file)) continue;
    if (/\.(sh|bash)$/.test(file)) {
      const shell = /^#!.*\bbash\b/.test(text) || file.endsWith(".bash") ? "bash" : "sh";
      add(`${shell} ${shellPath(file)}`, file, docComment(file, text));
    } else if (/^(src\/)?([A-Za-z_]\w*\/)+__main__\.py$/.test(file)) {
      // A package's __main__ runs as a module (its relative imports fail when run as a file).
      const module = file
        .replace(/^src\//, "")
        .replace(/\/__main__\.py$/, "")
        .replaceAll("/", ".");
      add(`python3 -m ${module}`, file, docComment(file, text));
    } else if (/\.py$/.test(file) && /^if __name__ == ["']__main__["']:/m.test(text)) {
      // A module inside a package runs as a module (its relative imports fail when run as a file).
      const parts = file.replace(/\.py$/, "").split("/");
      // The module's dotted name: the file under the folders that are packages (hold an __init__.py).
      let top = parts.length - 1;
      while (top > 0 && inputs.files.includes(`${parts.slice(0, top).join("/")}/__init__.py`)) top--;
      const module = parts.slice(top).join(".");
      if (top < parts.length - 1 && /^[A-Za-z_][\w.]*$/.test(module))
        add(`python3 -m ${module}`, file, docComment(file, text));
      else add(`python3 ${shellPath(file)}`, file, docComment(file, text));
    }
  }
  return { managers, commands: out };
}
