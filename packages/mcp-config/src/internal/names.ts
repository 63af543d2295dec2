// Shared name syntax, kept apart (and free of zod) so the schema, the pattern checker and the fast
// validator cannot drift.
export const SERVER_NAME_PATTERN_SOURCE = "^[a-z0-9][a-z0-9_-]*$";

/** Server names: lowercase letters, digits, `-` and `_`, starting with a letter or digit. */
export const SERVER_NAME_PATTERN = new RegExp(SERVER_NAME_PATTERN_SOURCE);
/** Agent names used as keys of `permissions:`. */
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** Environment variable NAMES (never values) referenced by `env`, `headers` and `auth`. */
export const ENV_VAR_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** HTTP header names (RFC 9110 tokens). */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A server name is at most this long. */
export const MAX_SERVER_NAME_LENGTH = 64;
