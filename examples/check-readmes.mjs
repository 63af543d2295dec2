// The READMEs' code examples are the files in examples/src, which CI type-checks and runs. A README
// marks each such block with a comment naming its file:
//
//   <!-- example: examples/src/langchain-agent.ts -->
//   ```ts
//   ...the file, exactly...
//   ```
//
// This checks that every marked block equals its file (and that every README names at least one file
// when it has any marker). `node check-readmes.mjs --write` rewrites the blocks from the files.
// Prints "readmes: N passed, N failed".
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../", import.meta.url));
const write = process.argv.includes("--write");
const readmes = [
  join(repo, "README.md"),
  ...readdirSync(join(repo, "packages")).map((p) => join(repo, "packages", p, "README.md")),
].filter((file) => existsSync(file));

const MARKER = /<!-- example: (examples\/src\/[\w.-]+\.ts) -->\n```ts\n([\s\S]*?)```/g;
let passed = 0;
let failed = 0;
for (const readme of readmes) {
  const text = readFileSync(readme, "utf8");
  const next = text.replace(MARKER, (block, file, code) => {
    const path = join(repo, file);
    if (!existsSync(path)) {
      failed++;
      console.log(`FAIL ${relative(repo, readme)}: names ${file}, which does not exist`);
      return block;
    }
    const source = readFileSync(path, "utf8");
    if (code === source) {
      passed++;
      return block;
    }
    if (write) {
      passed++;
      console.log(`wrote ${relative(repo, readme)}: ${file}`);
      return `<!-- example: ${file} -->\n\`\`\`ts\n${source}\`\`\``;
    }
    failed++;
    const a = code.split("\n");
    const b = source.split("\n");
    const line = a.findIndex((l, i) => l !== b[i]);
    console.log(
      `FAIL ${relative(repo, readme)}: the block of ${file} differs from the file at line ${line + 1}\n  README: ${a[line] ?? "(end)"}\n  file:   ${b[line] ?? "(end)"}\n  Fix: node examples/check-readmes.mjs --write`,
    );
    return block;
  });
  if (write && next !== text) writeFileSync(readme, next);
}
console.log(`readmes: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
