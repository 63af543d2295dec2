// Fixtures of the confirmation tests: a run saved `awaiting_confirmation` in a files state folder with its
// pending confirmations, written through the app's own store (what a paused run leaves behind), and a
// small JSON client for the REST API.
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { NewConfirmation } from "../../src/run-store/confirmations.js";
import { FileRunRepository } from "../../src/run-store/file-run-repository.js";
import { openPostgresRunRepository } from "../../src/run-store/postgres/postgres-run-repository.js";
import type { RunRepository, StoredRun } from "../../src/run-store/run-repository.js";
import { type Roster, type Served, startServe } from "./mcp-fixtures.js";

/** A preview that would be markup, an escape sequence and a fake prompt if it were not kept as text. */
export const HOSTILE_PREVIEW =
  '{"branch":"<img src=x onerror=\\"document.title=\'pwned\'\\"><b>main</b>","note":"\u001b[2J\u001b]52;c;cHduZWQ=\u0007"}';

/**
 * Save a run awaiting confirmation of `calls` in `store` (a files state folder, or `{ databaseUrl }`:
 * the PostgreSQL store, migrated if needed); resolves with its id.
 */
export async function seedAwaitingRun(
  store: string | { databaseUrl: string },
  options: {
    folder: string;
    configPath: string;
    calls: Array<Partial<NewConfirmation> & { callId: string }>;
    ttlMs?: number;
  },
): Promise<string> {
  const repo: RunRepository =
    typeof store === "string"
      ? new FileRunRepository(store)
      : await openPostgresRunRepository({ databaseUrl: store.databaseUrl, instanceId: "test-seed" });
  const id = randomUUID();
  const now = new Date().toISOString();
  const run: StoredRun = {
    id,
    agent: "documentation",
    folder: options.folder,
    model: "offline",
    configPath: options.configPath,
    maxRounds: 3,
    status: "awaiting_confirmation",
    createdAt: now,
    updatedAt: now,
    state: { messages: [], round: 0, calls: [], finished: false },
  };
  await repo.save(run);
  for (const call of options.calls) {
    await repo.requestConfirmation(
      {
        runId: id,
        agent: "documentation",
        identity: "local-tools.echo",
        serverName: "local-tools",
        toolName: "echo",
        title: "Echo",
        annotations: { readOnlyHint: false },
        fingerprint: "fp-seeded",
        binding: `binding-${call.callId}`,
        argumentsPreview: '{"text":"hello"}',
        ...call,
      },
      options.ttlMs ?? 3_600_000,
    );
  }
  await repo.close();
  return id;
}

/** A JSON request to the API: status and parsed body. */
export async function callApi(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string } = {},
): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body !== undefined
      ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }
      : {}),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: the caller asserts on `text`
  }
  return { status: response.status, json, text };
}

/** The tool the confirm rosters put under `confirm:` (the offline model calls it in its first round). */
export const CONFIRMED_TOOL = "filesystem.directory_tree";

/**
 * Make a `tempRoster()` file grant the Documentation agent its tools with `confirm:` on CONFIRMED_TOOL
 * (deny > confirm > allow, so that one tool needs a person's confirmation; the rest is allowed).
 */
export function requireConfirmation(config: string): void {
  const text = readFileSync(config, "utf8");
  const grant = "  documentation: [filesystem.*, sequential-thinking.*]\n";
  if (!text.includes(grant)) throw new Error(`no documentation grant to change in ${config}`);
  writeFileSync(
    config,
    text.replace(
      grant,
      `  documentation:\n    allow: [filesystem.*, sequential-thinking.*]\n    confirm: [${CONFIRMED_TOOL}]\n`,
    ),
  );
}

/** `agentforge serve` on the roster's config, state folder and allowed base (files mode), with extra variables. */
export function serveRoster(roster: Roster, env: Record<string, string> = {}): Promise<Served> {
  return startServe(
    [
      "--port",
      "0",
      "--no-check",
      "--config",
      roster.config,
      "--state-dir",
      roster.stateDir,
      "--allowed-base",
      roster.base,
    ],
    { env: { ...roster.env, ...env }, cwd: roster.dir },
  );
}
