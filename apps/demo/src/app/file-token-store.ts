// OAuth logins of remote servers kept as files: <state-dir>/oauth/<server>.json, mode 0600 in a 0700
// folder, written atomically. The app's manager reads them (so a login made with `agentforge mcp login`
// is used by `docs`, `serve` and every `mcp` verb); tokens never reach any output.
import { randomBytes } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { MCPOAuthRecord, MCPOAuthTokenStore } from "@agentforge/mcp-client";
import { MCPError } from "@agentforge/mcp-config";
import { type WarningSink, warnOnStderr } from "../shared/warnings.js";

/** The token folder cannot be trusted: a symlink, not a folder, or owned by another user. */
export class TokenFolderError extends MCPError<"TOKEN_FOLDER_UNSAFE"> {
  static override readonly errorName: string = "TokenFolderError";
  /** The folder concerned. */
  readonly dir: string;

  constructor(dir: string, why: string) {
    super(
      `${dir} ${why}, so OAuth tokens are neither read from it nor written to it. Fix: remove it (the next login creates it with mode 0700), or point the state folder elsewhere.`,
      { code: "TOKEN_FOLDER_UNSAFE" },
    );
    this.dir = dir;
  }
}

const SAFE_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * OAuth logins as files: `<dir>/<server>.json`, mode 0600 in a 0700 folder, written to a temporary file
 * and renamed over the old one so a crash never leaves half a record.
 */
export class FileTokenStore implements MCPOAuthTokenStore {
  readonly #warn: WarningSink;

  constructor(
    readonly dir: string,
    options: { warn?: WarningSink } = {},
  ) {
    this.#warn = options.warn ?? warnOnStderr;
  }

  /**
   * The folder as it must be: a real folder of this user with mode 0700. A wider mode (say 0777 from an
   * old umask or a copy) is narrowed; a symlink, a file or another user's folder is refused.
   * Returns false when the folder does not exist yet.
   */
  #checkFolder(): boolean {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
    if (stat.isSymbolicLink()) throw new TokenFolderError(this.dir, "is a symbolic link");
    if (!stat.isDirectory()) throw new TokenFolderError(this.dir, "is not a folder");
    if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
      throw new TokenFolderError(this.dir, `belongs to another user (uid ${stat.uid})`);
    }
    if ((stat.mode & 0o077) !== 0) chmodSync(this.dir, 0o700);
    return true;
  }

  /** The file of one server's login. */
  file(serverName: string): string {
    if (!SAFE_NAME.test(serverName)) throw new Error(`not a server name: ${JSON.stringify(serverName)}`);
    return join(this.dir, `${serverName}.json`);
  }

  get(serverName: string): MCPOAuthRecord | undefined {
    const file = this.file(serverName);
    if (!this.#checkFolder()) return undefined;
    try {
      const stat = lstatSync(file);
      if (!stat.isFile()) throw new Error("it is not a regular file");
      if ((stat.mode & 0o077) !== 0) chmodSync(file, 0o600);
      return JSON.parse(readFileSync(file, "utf8")) as MCPOAuthRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      // Counted as "not logged in" (the next login replaces it), and said so.
      this.#warn({
        code: "TOKEN_FILE_UNREADABLE",
        message: `the OAuth login of "${serverName}" in ${file} cannot be read; log in again`,
        cause: error,
      });
      return undefined;
    }
  }

  set(serverName: string, record: MCPOAuthRecord): void {
    if (!this.#checkFolder()) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.#checkFolder();
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
