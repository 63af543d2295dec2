// `agentforge serve --database-url URL` / `DATABASE_URL`: where runs are kept when several instances
// share them (PostgreSQL). The one parser of database URLs: checked at start (`databaseUrlFrom`), read
// for messages by the PostgreSQL store (`parseDatabaseUrl`, `redactSecret`); the password never appears
// in any message.
import { UsageError } from "../shared/usage-error.js";

/** A checked PostgreSQL URL. */
export interface DatabaseUrl {
  /** The URL as given (holds the password: never print it). */
  url: string;
  /** The same URL with the password replaced by `***`, for messages. */
  redacted: string;
  /** Where it came from: `--database-url` or `DATABASE_URL`. */
  source: "--database-url" | "DATABASE_URL";
}

/** Mask the password of a URL-like text (also when it does not parse). */
export function redactDatabaseUrl(text: string): string {
  // Up to the last "@" before the path: a password may itself hold "@" or spaces.
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^/]*@/i, "$1***@");
}

/**
 * The PostgreSQL URL `serve` should use: `--database-url` wins over `DATABASE_URL`; an empty value is
 * none. Throws `UsageError` for anything but a `postgres://` or `postgresql://` URL with a host and a
 * database name.
 */
export function databaseUrlFrom(flag: string | undefined, env: NodeJS.ProcessEnv): DatabaseUrl | undefined {
  const source = flag !== undefined ? "--database-url" : "DATABASE_URL";
  const raw = (flag ?? env.DATABASE_URL ?? "").trim();
  if (raw === "") {
    if (flag !== undefined)
      throw new UsageError("--database-url expects a postgres:// URL, got an empty value");
    return undefined;
  }
  const redacted = redactDatabaseUrl(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `${source} is not a URL (got "${redacted}"); expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new UsageError(
      `${source} must be a postgres:// or postgresql:// URL, got the scheme "${url.protocol.replace(/:$/, "")}"`,
    );
  }
  if (url.hostname === "" && !url.searchParams.has("host")) {
    throw new UsageError(
      `${source} names no host (got "${redacted}"); expected postgres://USER@HOST/DATABASE`,
    );
  }
  if (url.pathname.replace(/^\//, "") === "") {
    throw new UsageError(
      `${source} names no database (got "${redacted}"); expected postgres://USER@HOST/DATABASE`,
    );
  }
  return { url: raw, redacted, source };
}

/** What a database URL points at (no password). */
export interface DatabaseTarget {
  /** `host:port`. */
  host: string;
  database: string;
  user: string | null;
  /** The password, kept only to remove it from messages; never printed. */
  readonly secret: string | null;
}

/** Parse a `postgres://` / `postgresql://` URL; undefined when it is not one. */
export function parseDatabaseUrl(url: string): DatabaseTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") return undefined;
  const hostname = parsed.hostname || parsed.searchParams.get("host") || "localhost";
  const port = parsed.port || "5432";
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "postgres";
  const user = parsed.username ? decodeURIComponent(parsed.username) : null;
  const secret = parsed.password ? decodeURIComponent(parsed.password) : null;
  return { host: `${hostname}:${port}`, database, user, secret };
}

/** `text` with every occurrence of the URL, its password (raw and URL-encoded) replaced by `***`. */
export function redactSecret(text: string, url: string, target: DatabaseTarget | undefined): string {
  let out = text.split(url).join("***");
  const secret = target?.secret;
  if (secret) {
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join("***");
  }
  return out;
}
