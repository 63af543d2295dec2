// OAuth logins of remote servers kept as files: <state-dir>/oauth/<server>.json, mode 0600 in a 0700
// folder, written atomically. The app's manager reads them (so a login made with `agentforge mcp login`
// is used by `docs`, `serve` and every `mcp` verb); tokens never reach any output.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { MCPOAuthRecord, MCPOAuthTokenStore } from "@agentforge/mcp-client";

const SAFE_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * OAuth logins as files: `<dir>/<server>.json`, mode 0600 in a 0700 folder, written to a temporary file
 * and renamed over the old one so a crash never leaves half a record.
 */
export class FileTokenStore implements MCPOAuthTokenStore {
  constructor(readonly dir: string) {}

  /** The file of one server's login. */
  file(serverName: string): string {
    if (!SAFE_NAME.test(serverName)) throw new Error(`not a server name: ${JSON.stringify(serverName)}`);
    return join(this.dir, `${serverName}.json`);
  }

  get(serverName: string): MCPOAuthRecord | undefined {
    try {
      return JSON.parse(readFileSync(this.file(serverName), "utf8")) as MCPOAuthRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      // An unreadable or corrupt file counts as "not logged in"; the next login replaces it.
      return undefined;
    }
  }

  set(serverName: string, record: MCPOAuthRecord): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const target = this.file(serverName);
    const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      chmodSync(temporary, 0o600); // the umask cannot widen it, but a pre-existing mode could
      renameSync(temporary, target);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  delete(serverName: string): void {
    rmSync(this.file(serverName), { force: true });
  }
}

/** The token store of the app: `<stateDir>/oauth/`. */
export function appTokenStore(stateDir: string): FileTokenStore {
  return new FileTokenStore(join(resolve(stateDir), "oauth"));
}
