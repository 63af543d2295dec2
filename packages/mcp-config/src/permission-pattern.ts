import { SERVER_NAME_PATTERN_SOURCE } from "./internal/names.js";

const SERVER = new RegExp(SERVER_NAME_PATTERN_SOURCE);
const TOOL_PART = /^[A-Za-z0-9_.\-/*]+$/;

/**
 * Why `pattern` is not a valid permission pattern, or undefined when it is valid.
 *
 * Valid: an exact identity (`filesystem.read_text_file`), a whole server (`filesystem.*`), or `*`
 * inside the tool part (`github.get_*`). `*` never stands for a server: `*` and `*.*` are refused, so
 * granting everything has to be spelled out server by server.
 */
export function permissionPatternProblem(pattern: string): string | undefined {
  if (pattern === "*" || pattern === "*.*") {
    return `"${pattern}" would grant every tool of every server; list each server instead (e.g. "filesystem.*")`;
  }
  const dot = pattern.indexOf(".");
  if (dot === -1) {
    return `expected "<server>.<tool>", "<server>.*" or "<server>.<prefix>*", got "${pattern}"`;
  }
  const server = pattern.slice(0, dot);
  const tool = pattern.slice(dot + 1);
  if (server.includes("*")) {
    return `"*" is only allowed in the tool part; name the server explicitly in "${pattern}"`;
  }
  if (!SERVER.test(server)) {
    return `"${server}" in "${pattern}" is not a server name (lowercase letters, digits, '-' and '_')`;
  }
  if (tool.length === 0) return `the tool part of "${pattern}" is empty; use "${server}.*" for every tool`;
  if (!TOOL_PART.test(tool)) {
    return `the tool part of "${pattern}" may only contain letters, digits, '_', '-', '.', '/' and '*'`;
  }
  return undefined;
}
