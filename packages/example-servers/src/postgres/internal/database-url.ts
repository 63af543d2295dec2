// DATABASE_URL: which database, and which strings must never appear in any output.
/** A parsed database location. */
export type DatabaseLocation =
  | {
      kind: "postgres";
      connectionString: string;
      /** Strings to scrub from every message: the URL, its user info, its password. */
      secrets: string[];
    }
  | {
      kind: "pglite";
      /** Absolute data directory; absent for an in-memory database. */
      dataDir?: string;
      secrets: string[];
    };

/** Bad `url` option / DATABASE_URL. The message never repeats the value (it may hold a password). */
export class DatabaseUrlError extends Error {
  override readonly name = "DatabaseUrlError";
}

/**
 * Parse `postgres://…`, `postgresql://…`, `pglite://` (in memory) or `pglite:///path` / `pglite://relative/path`
 * (a persistent PGlite directory). Undefined or empty means the embedded in-memory database.
 */
export function parseDatabaseUrl(url: string | undefined, field = "url"): DatabaseLocation {
  if (url === undefined || url.trim() === "") return { kind: "pglite", secrets: [] };
  const text = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === "pglite") {
    const rest = text.slice("pglite:".length);
    if (!rest.startsWith("//")) {
      throw new DatabaseUrlError(
        `${field} must be pglite:// (in memory) or pglite:///path/to/dir (a PGlite data directory)`,
      );
    }
    const path = decodeURIComponent(rest.slice(2));
    return path === "" || path === "memory"
      ? { kind: "pglite", secrets: [] }
      : // node:path fetched here, not imported: the postgres bin parses DATABASE_URL before its first reply.
        { kind: "pglite", dataDir: process.getBuiltinModule("node:path").resolve(path), secrets: [] };
  }
  if (scheme === "postgres" || scheme === "postgresql") {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw new DatabaseUrlError(`${field} is not a valid postgres:// URL`);
    }
    const secrets = [text];
    const password = parsed.password ? safeDecode(parsed.password) : "";
    if (parsed.password) secrets.push(parsed.password, password);
    if (parsed.username || parsed.password) {
      secrets.push(`${parsed.username}:${parsed.password}`);
    }
    const queryPassword = parsed.searchParams.get("password");
    if (queryPassword) secrets.push(queryPassword);
    return {
      kind: "postgres",
      connectionString: text,
      // Very short strings would scrub ordinary words out of messages; they are not worth hiding.
      secrets: [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length),
    };
  }
  // Name the scheme only when the value clearly is a URL ("user:password@host" is not).
  const shown = /^[a-z][a-z0-9+.-]{0,20}:\/\//i.test(text) ? ` (got a "${scheme}://" URL)` : "";
  throw new DatabaseUrlError(`${field} must start with postgres://, postgresql:// or pglite://${shown}`);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Replace every secret in `message` by `***`. */
export function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) out = out.split(secret).join("***");
  return out;
}
