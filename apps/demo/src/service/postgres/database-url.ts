// Reading a PostgreSQL URL without ever repeating its password.

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
