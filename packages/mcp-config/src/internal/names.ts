// Shared name syntax, kept apart so the schema and the pattern checker cannot drift.
export const SERVER_NAME_PATTERN_SOURCE = "^[a-z0-9][a-z0-9_-]*$";
