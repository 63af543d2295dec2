// Runs every example in src/ as its own Node.js process (TypeScript through tsx), one after another:
// each must exit 0 within its budget and leave no child process behind (they close what they open).
// Prints one line per example and "N passed, N failed".
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("./src/", import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
// Generous: a busy shared machine can take many times longer than an idle one to start servers.
const BUDGET_MS = 120_000;

function run(file) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--import", "tsx", file], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_NO_WARNINGS: "1" },
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      output += `\n(killed: still running after ${BUDGET_MS} ms)\n`;
      child.kill("SIGKILL");
    }, BUDGET_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, code, signal, output, ms: Math.round(performance.now() - started) });
    });
  });
}

let passed = 0;
let failed = 0;
for (const file of files) {
  const result = await run(file);
  if (result.ok) {
    passed++;
    console.log(`ok   ${file} (${result.ms} ms)`);
    for (const line of result.output.trimEnd().split("\n")) console.log(`       ${line}`);
  } else {
    failed++;
    console.log(`FAIL ${file} (exit ${result.code ?? result.signal}, ${result.ms} ms)\n${result.output}`);
  }
}
console.log(`examples: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
