import type { MCPConfigIssue } from "./errors.js";
import { didYouMean } from "./suggest-name.js";

/** A grant pattern that names a server the roster does not define, and where it is. */
export interface MCPGrantServerProblem {
  /** Path segments of the pattern, from the permissions section: `["docs", "allow", 0]`. */
  path: (string | number)[];
  /** The server the pattern names. */
  serverName: string;
  /** What is wrong, cause first, with a did-you-mean when a defined server is close. */
  message: string;
}

type Kind = "tool" | "resource" | "prompt";

/** `permissions.docs.allow[0]`, as config issues spell field paths. */
function pathText(path: readonly (string | number)[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function serverOf(pattern: string, kind: Kind): string | undefined {
  const at = pattern.indexOf(kind === "resource" ? ":" : ".");
  return at > 0 ? pattern.slice(0, at) : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Every grant pattern whose server part names no server of the roster (`servers`: every defined name,
 * enabled or not): tool patterns (`allow`, `deny`, `confirm`), `resources`, `prompts` and `tool_search.always_load`
 * (`toolSearch.alwaysLoad` in code). Works on the section as written (a list, or `{ allow, deny, ... }`
 * per agent) and on grants written in code. Malformed entries are skipped: the schema reports those.
 */
export function findGrantServerProblems(
  permissions: unknown,
  servers: Iterable<string>,
): MCPGrantServerProblem[] {
  const section = asRecord(permissions);
  if (!section) return [];
  const known = [...servers];
  const defined = new Set(known);
  const problems: MCPGrantServerProblem[] = [];
  const check = (list: unknown, path: (string | number)[], kind: Kind) => {
    if (!Array.isArray(list)) return;
    list.forEach((pattern: unknown, i) => {
      if (typeof pattern !== "string") return;
      const serverName = serverOf(pattern, kind);
      if (serverName === undefined || defined.has(serverName)) return;
      problems.push({
        path: [...path, i],
        serverName,
        message: `names server "${serverName}", which the roster does not define${didYouMean(serverName, known)}; defined servers: ${known.length > 0 ? known.join(", ") : "none"}`,
      });
    });
  };
  const lists = (value: unknown, path: (string | number)[], kind: Kind) => {
    if (Array.isArray(value)) return check(value, path, kind);
    const record = asRecord(value);
    if (!record) return;
    check(record.allow, [...path, "allow"], kind);
    check(record.deny, [...path, "deny"], kind);
    check(record.confirm, [...path, "confirm"], kind);
  };
  for (const [agent, grant] of Object.entries(section)) {
    if (Array.isArray(grant)) {
      check(grant, [agent], "tool");
      continue;
    }
    const record = asRecord(grant);
    if (!record) continue;
    check(record.allow, [agent, "allow"], "tool");
    check(record.deny, [agent, "deny"], "tool");
    check(record.confirm, [agent, "confirm"], "tool");
    lists(record.resources, [agent, "resources"], "resource");
    lists(record.prompts, [agent, "prompts"], "prompt");
    const search = asRecord(record.tool_search) ?? asRecord(record.toolSearch);
    if (search) {
      const key = asRecord(record.tool_search) ? "tool_search" : "toolSearch";
      const alwaysKey = key === "tool_search" ? "always_load" : "alwaysLoad";
      check(search[alwaysKey], [agent, key, alwaysKey], "tool");
    }
  }
  return problems;
}

/**
 * `findGrantServerProblems` as config issues (`permissions.<agent>.allow[0]: names server ...`), e.g. to
 * check grants written in code against a roster: throw them in an `MCPConfigError` (`CONFIG_INVALID`).
 */
export function grantServerIssues(permissions: unknown, servers: Iterable<string>): MCPConfigIssue[] {
  return findGrantServerProblems(permissions, servers).map((problem) => ({
    path: pathText(["permissions", ...problem.path]),
    message: problem.message,
  }));
}
