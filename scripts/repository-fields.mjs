#!/usr/bin/env node
// Sets `repository`, `homepage` and `bugs` in every public package's package.json from the repository
// the release runs in. The project's public address is not written into the source tree: GitHub Actions
// knows it (GITHUB_SERVER_URL, GITHUB_REPOSITORY), and npm provenance requires `repository.url` to name
// exactly that repository, so the release derives the fields from there instead of trusting a copy.
//
//   node scripts/repository-fields.mjs            write the fields (the release does this before publishing)
//   node scripts/repository-fields.mjs --dry-run  print what would be written, change nothing
//
// Fails, naming the variable, when the repository is not known.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const dryRun = process.argv.includes("--dry-run");
const unknown = process.argv.slice(2).filter((arg) => arg !== "--dry-run");
if (unknown.length > 0) fail(`unknown argument ${unknown[0]}; the only option is --dry-run`);

const server = (process.env.GITHUB_SERVER_URL ?? "https://github.com").replace(/\/+$/, "");
const repository = process.env.GITHUB_REPOSITORY ?? "";
if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) {
  fail(
    repository === ""
      ? "GITHUB_REPOSITORY is not set: set it to the repository's owner/name (GitHub Actions sets it)"
      : `GITHUB_REPOSITORY must be owner/name, got ${JSON.stringify(repository)}`,
  );
}
if (!/^https:\/\/[^/\s]+$/.test(server)) {
  fail(`GITHUB_SERVER_URL must be an https origin such as https://github.com, got ${JSON.stringify(server)}`);
}
const web = `${server}/${repository}`;

let written = 0;
for (const folder of readdirSync(join(root, "packages")).sort()) {
  const file = join(root, "packages", folder, "package.json");
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    if (error.code === "ENOENT") continue;
    fail(`${file}: ${error.message}`);
  }
  if (manifest.private) continue;
  const directory = `packages/${folder}`;
  const fields = {
    repository: { type: "git", url: `git+${web}.git`, directory },
    homepage: `${web}/tree/main/${directory}#readme`,
    bugs: { url: `${web}/issues` },
  };
  console.log(
    `${manifest.name}: repository ${fields.repository.url} (${directory}), homepage ${fields.homepage}`,
  );
  if (dryRun) continue;
  writeFileSync(file, `${JSON.stringify(withFields(manifest, fields), null, 2)}\n`);
  written++;
}
console.log(dryRun ? "dry run: nothing written" : `${written} package.json files updated`);

/** The manifest with the fields set, keeping its key order: new fields go right after `license` (or last). */
function withFields(manifest, fields) {
  const keys = Object.keys(manifest).filter((key) => !(key in fields));
  const at = keys.indexOf("license") + 1 || keys.length;
  const order = [...keys.slice(0, at), ...Object.keys(fields), ...keys.slice(at)];
  return Object.fromEntries(order.map((key) => [key, key in fields ? fields[key] : manifest[key]]));
}

function fail(message) {
  console.error(`repository-fields: ${message}`);
  process.exit(1);
}
