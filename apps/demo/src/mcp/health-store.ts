// The last known health of each server, persisted in <stateDir>/mcp-health.json so `agentforge mcp list`
// (which never connects) and a restarted `agentforge serve` can show it. Keyed by config file, then
// server name. Written atomically; the last writer wins. What is written is redacted again (defence in
// depth: an error text may quote a server's stderr).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { HealthView } from "./mcp-views.js";
import type { SecretRedactor } from "./secret-redactor.js";

interface HealthFile {
  version: 1;
  configs: Record<string, Record<string, HealthView>>;
}

const STATUSES = new Set(["healthy", "unhealthy", "disabled"]);

function isHealthView(value: unknown): value is HealthView {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return STATUSES.has(String(v.status)) && typeof v.checkedAt === "string";
}

/** Last known health per server of one config file. */
export class HealthStore {
  readonly file: string;
  readonly #key: string;
  readonly #redactor: SecretRedactor | undefined;

  constructor(stateDir: string, configPath: string, redactor?: SecretRedactor) {
    this.file = join(resolve(stateDir), "mcp-health.json");
    this.#key = resolve(configPath);
    this.#redactor = redactor;
  }

  #read(): HealthFile {
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as Partial<HealthFile>;
      if (parsed.version === 1 && typeof parsed.configs === "object" && parsed.configs !== null) {
        return { version: 1, configs: parsed.configs };
      }
    } catch {
      // missing or unreadable: start afresh
    }
    return { version: 1, configs: {} };
  }

  /** The recorded health of every server of this config. */
  load(): Map<string, HealthView> {
    const records = this.#read().configs[this.#key] ?? {};
    return new Map(
      Object.entries(records).filter((entry): entry is [string, HealthView] => isHealthView(entry[1])),
    );
  }

  /** Record results (merged into what is stored). */
  save(results: ReadonlyMap<string, HealthView>): void {
    if (results.size === 0) return;
    const data = this.#read();
    const records = { ...(data.configs[this.#key] ?? {}) };
    for (const [name, health] of results) records[name] = health;
    data.configs[this.#key] = records;
    mkdirSync(join(this.file, ".."), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    const text = `${JSON.stringify(data, null, 2)}\n`;
    writeFileSync(temp, this.#redactor ? this.#redactor.redact(text) : text, { mode: 0o600 });
    renameSync(temp, this.file);
  }
}
