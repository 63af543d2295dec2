// Project manifests read from their text (whole or cut by a read bound): package.json, pyproject.toml,
// Cargo.toml, go.mod, composer.json, setup.cfg, pnpm-workspace.yaml and the JVM/C build files (pom.xml,
// build.gradle, CMakeLists.txt) — name, description, scripts and entry points.

import { code } from "./markdown.js";
import { parsePartialJson } from "./partial-json.js";

/** What a manifest says about its project. */
export interface Manifest {
  /** The manifest's file name (`package.json`, …). */
  file: string;
  /** What kind of project it declares, for the key-file line (`npm package`, `Python project`, …). */
  kind: string;
  name?: string;
  version?: string;
  description?: string;
  /** Named scripts: name → command (package.json and composer.json `scripts`). */
  scripts: [string, string][];
  /** Installed commands: name → target (`bin`, `[project.scripts]`, `[[bin]]`). */
  bins: [string, string][];
  /** Workspace package globs (pnpm-workspace.yaml, package.json `workspaces`, Cargo `[workspace]`). */
  workspaces: string[];
  /** package.json `packageManager`, e.g. `pnpm@9.1.0`. */
  packageManager?: string;
  /**
   * Entry points the manifest names, relative to the project it describes (its folder; the parent folder
   * for a `*.egg-info`/`*.dist-info` one), best first: package.json `exports`/`main`/`types`/`bin`, Cargo's
   * library and binaries, a Python distribution's import package. Candidates: some may not exist. A
   * `**\/` prefix means "the file ending so, anywhere" (a JAR's main class).
   */
  entries: string[];
  /** package.json `private: true` (never published: not installed by name). */
  isPrivate?: boolean;
  /** The README a Python distribution carries as its metadata's description. */
  readme?: string;
  /** Ant's default target. */
  defaultTarget?: string;
}

/** File names read as manifests. */
export const MANIFEST_FILES = [
  "package.json",
  "pyproject.toml",
  "Cargo.toml",
  "go.mod",
  "composer.json",
  "setup.cfg",
  "pnpm-workspace.yaml",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "CMakeLists.txt",
  "deno.json",
  "PKG-INFO",
  "METADATA",
  "entry_points.txt",
  "build.xml",
  "MANIFEST.MF",
] as const;

const str = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : undefined);

function pairs(value: unknown, fallbackName?: string): [string, string][] {
  if (typeof value === "string" && fallbackName) return [[fallbackName, value]];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]): [string, string][] =>
    typeof v === "string"
      ? [[k, v]]
      : Array.isArray(v)
        ? [[k, v.filter((x) => typeof x === "string").join(" && ")]]
        : [],
  );
}

/** package.json's entry points: the root export first (types, then code), then main/module/types, then bins. */
function packageEntries(data: Record<string, unknown>): string[] {
  const found: string[] = [];
  const add = (value: unknown) => {
    if (typeof value !== "string" || value.includes("*")) return;
    const path = value.replace(/^\.\//, "");
    if (path && !path.startsWith("../") && !found.includes(path)) found.push(path);
  };
  const walk = (value: unknown, depth: number) => {
    if (depth > 6) return;
    if (typeof value === "string") add(value);
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (typeof value === "object" && value !== null)
      for (const [key, item] of Object.entries(value)) if (key !== "./package.json") walk(item, depth + 1);
  };
  const exports = data.exports;
  if (typeof exports === "object" && exports !== null && !Array.isArray(exports) && "." in exports)
    walk((exports as Record<string, unknown>)["."], 0);
  else if (typeof exports === "string" || Array.isArray(exports)) walk(exports, 0);
  else if (
    typeof exports === "object" &&
    exports !== null &&
    !Object.keys(exports).some((k) => k.startsWith("."))
  )
    walk(exports, 0);
  for (const key of ["main", "module", "types", "typings"]) add(data[key]);
  if (found.length === 0 && typeof data.name === "string" && data.exports === undefined) add("index.js");
  walk(data.exports, 0);
  walk(data.bin, 0);
  return found;
}

function jsonManifest(file: string, kind: string, text: string, scriptsKey = "scripts"): Manifest {
  const parsed = parsePartialJson(text.replace(/\.\.\. \[\d+ characters truncated\]\s*$/, ""));
  const data = (typeof parsed.value === "object" && parsed.value !== null ? parsed.value : {}) as Record<
    string,
    unknown
  >;
  const name = str(data.name);
  const workspaces = Array.isArray(data.workspaces)
    ? data.workspaces
    : (data.workspaces as { packages?: unknown } | undefined)?.packages;
  const manifest: Manifest = {
    file,
    kind,
    scripts: pairs(data[scriptsKey]),
    bins: pairs(data.bin, name?.replace(/^@[^/]+\//, "")),
    workspaces: Array.isArray(workspaces) ? workspaces.filter((w): w is string => typeof w === "string") : [],
    entries: kind === "npm package" ? packageEntries(data) : [],
  };
  if (name) manifest.name = name;
  if (data.private === true) manifest.isPrivate = true;
  if (str(data.version)) manifest.version = str(data.version);
  if (str(data.description)) manifest.description = str(data.description);
  if (str(data.packageManager)) manifest.packageManager = str(data.packageManager);
  return manifest;
}

/** A TOML file's `key = "string"` values by section (`""` for the top), enough for manifests. */
export function tomlSections(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>([["", new Map()]]);
  let current = sections.get("") as Map<string, string>;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header?.[1]) {
      // Each `[[bin]]` table gets its own section name: bin#0, bin#1, …
      let name = header[1].replace(/\s+/g, "").replace(/"/g, "");
      if (line.startsWith("[[")) {
        let n = 0;
        while (sections.has(`${name}#${n}`)) n++;
        name = `${name}#${n}`;
      }
      current = sections.get(name) ?? new Map();
      sections.set(name, current);
      continue;
    }
    const pair = /^("?[\w.-]+"?)\s*=\s*(.*)$/.exec(line);
    if (!pair?.[1]) continue;
    let value = (pair[2] ?? "").trim();
    if (value.startsWith('"""') || value.startsWith("'''")) {
      const quote = value.slice(0, 3);
      let body = value.slice(3);
      while (!body.includes(quote) && i + 1 < lines.length) body += `\n${lines[++i]}`;
      value = body.slice(0, body.includes(quote) ? body.indexOf(quote) : undefined).trim();
    } else {
      const quoted = /^"((?:[^"\\]|\\.)*)"|^'([^']*)'/.exec(value);
      if (quoted) value = quoted[1] !== undefined ? quoted[1].replace(/\\(.)/g, "$1") : (quoted[2] ?? "");
      else if (value.startsWith("[")) {
        // An array, possibly over several lines: keep its string items, comma-separated.
        let body = value;
        while (!/\]\s*(#.*)?$/.test(body) && i + 1 < lines.length) body += ` ${lines[++i]?.trim()}`;
        value = [...body.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2]).join(", ");
      } else value = value.replace(/\s+#.*$/, "");
    }
    current.set(pair[1].replace(/"/g, ""), value);
  }
  return sections;
}

function tomlManifest(file: string, text: string): Manifest {
  const sections = tomlSections(text);
  const get = (section: string, key: string) => str(sections.get(section)?.get(key));
  if (file === "Cargo.toml") {
    const bins: [string, string][] = [];
    for (const [name, values] of sections) {
      if (!name.startsWith("bin#")) continue;
      const bin = str(values.get("name"));
      if (bin) bins.push([bin, str(values.get("path")) ?? ""]);
    }
    const members = get("workspace", "members");
    return {
      file,
      kind: "Rust crate",
      ...(get("package", "name") ? { name: get("package", "name") } : {}),
      ...(get("package", "version") ? { version: get("package", "version") } : {}),
      ...(get("package", "description") ? { description: get("package", "description") } : {}),
      scripts: [],
      bins,
      workspaces: members ? members.split(", ") : [],
      // The library, then the binaries (Cargo's defaults when the tables name no path).
      entries: [
        get("lib", "path") ?? "src/lib.rs",
        ...bins.map(([, path]) => path).filter((p) => p),
        "src/main.rs",
      ],
    };
  }
  // pyproject.toml: PEP 621 [project], else Poetry's [tool.poetry].
  const table = sections.has("project") ? "project" : "tool.poetry";
  const scripts = [...(sections.get(`${table}.scripts`) ?? new Map<string, string>())];
  return {
    file,
    kind: "Python project",
    ...(get(table, "name") ? { name: get(table, "name") } : {}),
    ...(get(table, "version") ? { version: get(table, "version") } : {}),
    ...(get(table, "description") ? { description: get(table, "description") } : {}),
    scripts: [],
    bins: scripts,
    workspaces: [],
    entries: pythonEntries(
      [get(table, "name"), ...scripts.map(([, target]) => target.split(/[.:]/)[0])],
      /=\s*["']([^"']+)["']/.exec(sections.get("tool.setuptools")?.get("package-dir") ?? "")?.[1],
    ),
  };
}

/** Where a Python project's import packages may be: each name as a package or a module, flat or under src/. */
function pythonEntries(names: readonly (string | undefined)[], packageDir?: string): string[] {
  const dirs = [...new Set([packageDir, "", "src"].filter((d): d is string => d !== undefined))];
  const modules = [...new Set(names.filter((n): n is string => !!n).map((n) => n.replace(/[-.]/g, "_")))];
  return modules.flatMap((m) =>
    dirs.flatMap((d) => [`${d ? `${d}/` : ""}${m}/__init__.py`, `${d ? `${d}/` : ""}${m}.py`]),
  );
}

/**
 * A Python distribution's metadata (PKG-INFO of an sdist or egg, METADATA of a wheel): RFC 822 headers —
 * Name, Version, Summary — and the README as the body (or as the older indented Description header).
 */
function pythonMetadata(file: string, text: string): Manifest {
  const normal = text.replace(/\r\n?/g, "\n");
  const split = normal.indexOf("\n\n");
  const head = split === -1 ? normal : normal.slice(0, split);
  const headers = new Map<string, string>();
  let last: string | undefined;
  for (const line of head.split("\n")) {
    if (/^[ \t]/.test(line) && last) {
      headers.set(last, `${headers.get(last) ?? ""}\n${line}`);
      continue;
    }
    const header = /^([\w-]+):[ \t]?(.*)$/.exec(line);
    last = header?.[1]?.toLowerCase();
    if (header && last && !headers.has(last)) headers.set(last, header[2] ?? "");
  }
  let readme = split === -1 ? "" : normal.slice(split + 2);
  const described = headers.get("description");
  if (!readme.trim() && described)
    readme = described
      .split("\n")
      .map((l, i) => (i === 0 ? l : l.replace(/^( {8}|[ \t]{7}\||\t)/, "")))
      .join("\n");
  const manifest = describedBy(file, "Python distribution", {
    name: str(headers.get("name")),
    version: str(headers.get("version")),
    description: str(headers.get("summary")),
  });
  manifest.entries = pythonEntries([manifest.name]);
  if (readme.trim()) manifest.readme = readme;
  return manifest;
}

/** entry_points.txt of an egg or wheel: its `[console_scripts]` are the installed commands. */
function entryPoints(file: string, text: string): Manifest {
  const manifest = describedBy(file, "Python entry points", {});
  let inScripts = false;
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) inScripts = header[1]?.trim() === "console_scripts";
    const pair = inScripts ? /^\s*([\w.-]+)\s*=\s*(\S+)/.exec(line) : null;
    if (pair) manifest.bins.push([pair[1] as string, pair[2] as string]);
  }
  return manifest;
}

/** Ant's build.xml: the `<project>`'s name, default target and description. */
function antBuild(file: string, text: string): Manifest {
  const project = /<project\b([^>]*)>/.exec(text.replace(/<!--[\s\S]*?-->/g, ""))?.[1] ?? "";
  const attribute = (name: string) => str(new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`).exec(project)?.[1]);
  const manifest = describedBy(file, "Ant build", {
    name: attribute("name"),
    description: xmlText(
      /<project\b[^>]*>\s*(?:<!--[\s\S]*?-->\s*)*<description>([\s\S]*?)<\/description>/.exec(text)?.[1],
    ),
  });
  const target = attribute("default");
  if (target) manifest.defaultTarget = target;
  return manifest;
}

/** A JAR manifest (MANIFEST.MF, or a build's manifest file): its Main-Class is the entry point. */
function jarManifest(file: string, text: string): Manifest | undefined {
  const main = /^Main-Class:\s*([\w.$]+)\s*$/m.exec(text)?.[1];
  if (!main && !/^Manifest-Version:/m.test(text)) return undefined;
  const manifest = describedBy(file, "JAR manifest", {});
  if (main) {
    manifest.entries = [`**/${main.replace(/\$.*$/, "").replaceAll(".", "/")}.java`];
    manifest.bins.push([main, ""]);
  }
  return manifest;
}

/** A manifest that names its project and nothing more (no scripts, commands or workspaces). */
function describedBy(
  file: string,
  kind: string,
  fields: { name?: string | undefined; version?: string | undefined; description?: string | undefined },
): Manifest {
  const manifest: Manifest = { file, kind, scripts: [], bins: [], workspaces: [], entries: [] };
  if (fields.name) manifest.name = fields.name;
  if (fields.version) manifest.version = fields.version;
  if (fields.description && fields.description !== fields.name) manifest.description = fields.description;
  return manifest;
}

function goManifest(file: string, text: string): Manifest {
  const go = /^go\s+(\S+)/m.exec(text)?.[1];
  return describedBy(file, "Go module", {
    name: /^module\s+(\S+)/m.exec(text)?.[1],
    version: go ? `go ${go}` : undefined,
  });
}

function setupCfg(file: string, text: string): Manifest {
  const get = (key: string) => new RegExp(`^${key}\\s*=\\s*(.+)$`, "m").exec(text)?.[1]?.trim();
  return describedBy(file, "Python project", {
    name: get("name"),
    version: get("version"),
    description: get("description"),
  });
}

const xmlText = (value: string | undefined) =>
  value
    ?.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim() || undefined;

/** pom.xml: the project's own artifactId, version, name and description (not its parent's or plugins'). */
function mavenPom(file: string, text: string): Manifest {
  const own = text
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(
      /<(parent|dependencies|dependencyManagement|build|profiles|modules|licenses|developers|contributors|organization|repositories|pluginRepositories|mailingLists|scm|issueManagement|ciManagement|distributionManagement|reporting|properties)>[\s\S]*?(<\/\1>|$)/g,
      "",
    );
  const tag = (name: string) => xmlText(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(own)?.[1]);
  return describedBy(file, "Maven project", {
    name: tag("artifactId"),
    version: tag("version"),
    description: tag("description") ?? tag("name"),
  });
}

/** build.gradle(.kts): its `description` and `version` assignments. */
function gradleBuild(file: string, text: string): Manifest {
  const assigned = (key: string) =>
    str(new RegExp(`^${key}\\s*=\\s*["']([^"'\n]+)["']`, "m").exec(text)?.[1]);
  return describedBy(file, "Gradle build", {
    version: assigned("version"),
    description: assigned("description"),
  });
}

/** CMakeLists.txt: `project(name VERSION x DESCRIPTION "…")`. */
function cmakeProject(file: string, text: string): Manifest {
  const call = /^\s*project\s*\(([^)]*)\)/im.exec(text)?.[1] ?? "";
  return describedBy(file, "CMake project", {
    name: str(/^\s*([\w.+-]+)/.exec(call)?.[1]),
    version: str(/\bVERSION\s+([\w.]+)/.exec(call)?.[1]),
    description: str(/\bDESCRIPTION\s+"([^"]*)"/.exec(call)?.[1]),
  });
}

function pnpmWorkspace(file: string, text: string): Manifest {
  const block = /^packages:\s*\n((?:\s+-.*\n?|\s*#.*\n?)*)/m.exec(text)?.[1] ?? "";
  const globs = [...block.matchAll(/^\s+-\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$/gm)].map((m) => m[1] as string);
  return { file, kind: "pnpm workspace", scripts: [], bins: [], workspaces: globs, entries: [] };
}

/** Read a manifest by its file name (and folder); `undefined` for a file that is not one. */
export function parseManifest(file: string, text: string): Manifest | undefined {
  const base = file.split("/").at(-1) ?? file;
  const folder = file.split("/").at(-2) ?? "";
  if (/^(MANIFEST\.MF|Manifest\.\w+)$/.test(base)) return jarManifest(base, text);
  switch (base) {
    case "PKG-INFO":
      return pythonMetadata(base, text);
    case "METADATA":
      return folder.endsWith(".dist-info") ? pythonMetadata(base, text) : undefined;
    case "entry_points.txt":
      return /\.(egg|dist)-info$/.test(folder) ? entryPoints(base, text) : undefined;
    case "build.xml":
      return /<project\b/.test(text) ? antBuild(base, text) : undefined;
    case "package.json":
      return jsonManifest(base, "npm package", text);
    case "composer.json":
      return jsonManifest(base, "PHP package", text);
    case "deno.json":
      return jsonManifest(base, "Deno project", text, "tasks");
    case "pyproject.toml":
    case "Cargo.toml":
      return tomlManifest(base, text);
    case "go.mod":
      return goManifest(base, text);
    case "setup.cfg":
      return setupCfg(base, text);
    case "pnpm-workspace.yaml":
      return pnpmWorkspace(base, text);
    case "pom.xml":
      return mavenPom(base, text);
    case "build.gradle":
    case "build.gradle.kts":
      return gradleBuild(base, text);
    case "CMakeLists.txt":
      return cmakeProject(base, text);
    default:
      return undefined;
  }
}

/** The key-file line of a manifest: `npm package \`name\` 1.0.0: what it is`. */
export function describeManifest(manifest: Manifest): string {
  if (manifest.kind === "pnpm workspace")
    return manifest.workspaces.length > 0
      ? `pnpm workspace: ${manifest.workspaces.map((w) => code(w)).join(", ")}`
      : "pnpm workspace";
  if (manifest.kind === "JAR manifest")
    return manifest.bins[0] ? `JAR manifest: main class ${code(manifest.bins[0][0])}` : "JAR manifest";
  if (manifest.kind === "Python entry points")
    return manifest.bins.length > 0
      ? `installed commands ${manifest.bins.map(([name, target]) => `${code(name)} (${code(target)})`).join(", ")}`
      : "Python entry points";
  const head = `${manifest.kind}${manifest.name ? ` ${code(manifest.name)}` : ""}${manifest.version ? ` ${manifest.version}` : ""}`;
  if (manifest.kind === "Ant build" && !manifest.description && manifest.defaultTarget)
    return `${head}, default target ${code(manifest.defaultTarget)}`;
  if (manifest.description) return `${head}: ${manifest.description}`;
  if (manifest.name || manifest.version) return head;
  if (manifest.scripts.length === 0) return `${manifest.kind} settings, without a name or description`;
  const names = manifest.scripts.slice(0, 6).map(([name]) => code(name));
  const more = manifest.scripts.length > 6 ? ` and ${manifest.scripts.length - 6} more` : "";
  return `${manifest.kind} settings, ${manifest.file === "deno.json" ? "tasks" : "scripts"} ${names.join(", ")}${more}`;
}
