// Starts a browser MCP server only when the browser it needs exists, so a missing Chromium is reported as
// "no browser" at connect time instead of failing on the first tool call.
// Usage: playwright-launcher --executable-path PATH -- COMMAND [ARGS...]
//
// Chromium cannot sandbox itself when it runs as root (a container, a CI job): every page then fails with
// "Chromium sandboxing failed!". As root, and only then, the launcher passes `--no-sandbox` on to the
// server, unless the command line already says `--sandbox` or `--no-sandbox`.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const flagIndex = argv.indexOf("--executable-path");
const browser = flagIndex >= 0 && flagIndex < split ? argv[flagIndex + 1] : undefined;
const [command, ...args] = split >= 0 ? argv.slice(split + 1) : [];

if (!browser || !command) {
  process.stderr.write("usage: playwright-launcher --executable-path PATH -- COMMAND [ARGS...]\n");
  process.exit(2);
}

try {
  if (!statSync(browser).isFile()) throw new Error("not a file");
  accessSync(browser, constants.X_OK);
} catch {
  process.stderr.write(
    `no browser: no executable Chromium at ${browser}. Install one (Debian: apt-get install chromium) or set PLAYWRIGHT_CHROMIUM to a Chromium or Chrome executable.\n`,
  );
  process.exit(1);
}

const sandboxChosen = args.some((arg) => arg === "--sandbox" || arg === "--no-sandbox");
if (process.getuid?.() === 0 && !sandboxChosen) {
  args.push("--no-sandbox");
  process.stderr.write(
    "playwright-launcher: running as root, where Chromium cannot sandbox itself: starting it with --no-sandbox\n",
  );
}

const child = spawn(command, args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => {
  process.stderr.write(`cannot start ${command}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
