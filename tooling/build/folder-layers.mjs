// The one direction between the folders of a src/ tree: each folder (a "part") may import only from the
// parts listed after it. Used by the folder-layout tests of the packages that are split into layers.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Every non-test .ts file under `dir`. */
export function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Every relative import of `file` (static, re-export, dynamic) as an edge between parts, with its line. */
export function importEdges(file, partOf) {
  const text = readFileSync(file, "utf8");
  const edges = [];
  const pattern = /(?:\bfrom\s+|\bimport\s*\(\s*)"(\.{1,2}\/[^"]+)"/g;
  for (const match of text.matchAll(pattern)) {
    const target = resolve(dirname(file), match[1].replace(/\.js$/, ".ts"));
    const line = text.slice(0, match.index).split("\n").length;
    edges.push({ from: partOf(file), to: partOf(target), where: `${file}:${line}` });
  }
  return edges;
}

/** The edges that run back up `layers` (or leave it), as "file:line from -> to". */
export function layerViolations(edges, layers) {
  const rank = (part) => layers.indexOf(part);
  return edges
    .filter((edge) => edge.from !== edge.to && !(rank(edge.from) >= 0 && rank(edge.to) > rank(edge.from)))
    .map((edge) => `${edge.where} ${edge.from} -> ${edge.to}`);
}

/** `file`'s first folder below `root`, or the file itself when it sits in `root`. */
export function topPart(root, file) {
  return relative(root, file).split("/")[0];
}
