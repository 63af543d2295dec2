// Values PostgreSQL accepts: jsonb and text refuse NUL characters, which untrusted text may carry.

/** JSON text PostgreSQL's jsonb accepts: `\u0000` (refused by jsonb) becomes U+FFFD. */
export function toJsonb(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd");
}

/** Text PostgreSQL accepts (NUL refused in text columns). */
export function toText(value: string | undefined): string | null {
  return value === undefined ? null : value.replaceAll("\0", "\uFFFD");
}
