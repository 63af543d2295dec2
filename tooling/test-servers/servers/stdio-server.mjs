#!/usr/bin/env node
// A real MCP server over stdio whose misbehaviour is chosen by flags (see ../README.md).
import { appendFileSync, existsSync } from "node:fs";
import { parseArgs } from "./lib/args.mjs";

const options = parseArgs(process.argv.slice(2));
const say = (line) => process.stderr.write(`${line}\n`);
// stderr on a pipe is asynchronous: exit only once everything written so far is flushed.
const exit = (code) => process.stderr.write("", () => process.exit(code));

if (typeof options.startLog === "string") appendFileSync(options.startLog, `${process.pid}\n`);
if (typeof options.stderrEnv === "string") {
  for (const name of options.stderrEnv.split(",")) say(`env ${name}=${process.env[name] ?? ""}`);
}
// A variable's value placed at a given offset of one long stderr line / one non-JSON stdout line: to
// check that redaction holds across read boundaries and before truncation.
if (typeof options.stderrValueEnv === "string") {
  const value = process.env[options.stderrValueEnv] ?? "";
  process.stderr.write(`${"e".repeat(Number(options.stderrValueOffset ?? 0))}${value} end of line\n`);
}
if (typeof options.stdoutValueEnv === "string") {
  const value = process.env[options.stdoutValueEnv] ?? "";
  process.stdout.write(`${"n".repeat(Number(options.stdoutValueOffset ?? 0))}${value} end of line\n`);
}
for (let i = 0; i < Number(options.stderrLines ?? 0); i++) say(`stderr line ${String(i).padStart(5, "0")}`);
if (typeof options.failUntilFile === "string" && !existsSync(options.failUntilFile)) {
  say(`test server: ${options.failUntilFile} does not exist yet, exiting`);
  exit(3);
} else if (options.exitAtStart !== undefined) {
  say(typeof options.message === "string" ? options.message : "test server: fatal error at start-up");
  exit(options.exitAtStart === true ? 1 : Number(options.exitAtStart));
} else {
  await serve();
}

async function serve() {
  if (options.garbageAtStart) process.stdout.write("garbage: this server prints logs on stdout\n");
  if (options.noiseAtStart !== undefined) {
    const { writeNoise } = await import("./lib/test-server.mjs");
    writeNoise(5, Number(options.noiseAtStart));
  }
  if (options.stubborn) {
    process.on("SIGTERM", () => say("test server: ignoring SIGTERM"));
    setInterval(() => {}, 1000);
  }
  // The delay comes before loading the SDK: it models a server that waits (on a database, an API)
  // before it is ready, not one that burns CPU.
  if (options.startupDelayMs !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, Number(options.startupDelayMs)));
  }
  if (options.noHandshake) {
    say("test server: up, but never answering MCP");
    process.stdin.resume();
  } else {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const { createTestServer } = await import("./lib/test-server.mjs");
    const server = createTestServer(options);
    await server.connect(new StdioServerTransport());
    say("ready");
  }
  if (!options.stubborn) process.stdin.on("end", () => process.exit(0));
}
