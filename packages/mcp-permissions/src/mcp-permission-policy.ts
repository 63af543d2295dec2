import {
  AGENT_NAME_PATTERN,
  canonicalResourceUri,
  MCPConfigError,
  type MCPConfigIssue,
  type MCPPatternLists,
  type MCPPermissionsConfig,
  permissionPatternProblem,
  promptPatternProblem,
  resourcePatternProblem,
  SERVER_NAME_PATTERN,
} from "@agentforge/mcp-config";
import type { MCPToolRegistry } from "./mcp-tool-registry.js";
import { type MCPToolDescriptor, parseToolIdentity } from "./tool-identity.js";

/**
 * Patterns of one kind: a list of allowed patterns, or allowed, denied and confirm-first ones.
 * Precedence: deny > confirm > allow; a confirm pattern grants too, once a person confirms each use.
 */
export type MCPPatternGrant =
  | readonly string[]
  | {
      readonly allow?: readonly string[];
      readonly deny?: readonly string[];
      readonly confirm?: readonly string[];
    };

/**
 * One agent's grants: a list of allowed tool patterns, or `{ allow, deny, confirm }` tool patterns plus,
 * when the agent may read resources or get prompts, `resources` (`<server>:<uri-pattern>`) and `prompts`
 * (`<server>.<prompt>`). Without `resources` (or `prompts`) the agent gets none: deny by default.
 * `confirm` patterns grant only with a person's confirmation of each call; `confirmDestructive` adds
 * that confirmation for tools whose annotations say `destructiveHint: true` or say nothing of
 * `readOnlyHint`.
 */
export type MCPAgentGrant =
  | readonly string[]
  | {
      readonly allow?: readonly string[];
      readonly deny?: readonly string[];
      readonly confirm?: readonly string[];
      readonly confirmDestructive?: boolean;
      readonly resources?: MCPPatternGrant;
      readonly prompts?: MCPPatternGrant;
    };

/** Agent name -> grant, e.g. `{ documentation: ["filesystem.*", "local-tools.echo"] }`. */
export type MCPPermissionGrants = Readonly<Record<string, MCPAgentGrant>>;

/** Why a decision came out the way it did. */
export type MCPPermissionBasis =
  /** An allow pattern matched and no deny pattern did. */
  | "allow"
  /** A deny pattern matched (deny overrides confirm and allow). */
  | "deny"
  /** A confirm pattern matched and no deny pattern did: granted once a person confirms the call. */
  | "confirm"
  /** The agent has no entry, or an empty one. */
  | "no-grants"
  /** The agent has grants, but none matches the identity. */
  | "no-match"
  /**
   * The identity is not a well-formed `<server>.<tool>` (or, for `decidePrompt`, server and prompt
   * name; for `decideResource`, server name and a URI that is refused as it stands).
   */
  | "invalid-identity"
  /** The tool's definition changed since it was approved (`pinToolDefinitions`). */
  | "definition-changed";

/**
 * Why a granted call needs a person's confirmation first: a `confirm` pattern matched (`"pattern"`), or
 * the agent has `confirmDestructive` and the tool's annotations say `destructiveHint: true` or say
 * nothing of `readOnlyHint` (`"annotations"`).
 */
export type MCPConfirmationBasis = "pattern" | "annotations";

/** What `decide` may know of the tool beyond its identity: its annotations (as its server lists them). */
export interface MCPDecideToolInfo {
  /** The tool's annotations; untrusted, so they can only ever add confirmation. */
  annotations?: unknown;
}

/** The answer of `decide`: allowed or not, and why. */
export interface MCPPermissionDecision {
  /**
   * Whether the grants allow the call. When `confirmation` is set, the call may go ahead only after a
   * person confirms it.
   */
  allowed: boolean;
  basis: MCPPermissionBasis;
  /** A sentence for logs and for the model. */
  reason: string;
  /** The pattern that decided, for `allow` and `deny`. */
  matchedPattern?: string;
  /**
   * `decideResource` only: the URI in the one spelling the decision was made on (see
   * `canonicalResourceUri`). Send this one to the server, never the spelling that was asked for.
   */
  resourceUri?: string;
  /**
   * Set when the call is allowed only once a person confirms it, and why (a `confirm` pattern, or the
   * tool's annotations under `confirmDestructive`). Absent: no confirmation needed.
   */
  confirmation?: MCPConfirmationBasis;
}

/**
 * Whether annotations put a tool under `confirmDestructive`: `destructiveHint: true`; or no
 * `readOnlyHint` (absent, or not a boolean); or `readOnlyHint: false` without `destructiveHint: false`
 * (the MCP default for a tool that writes is destructive). Anything not a plain object counts as no
 * annotations, so it needs confirmation: annotations only ever add confirmation.
 */
export function annotationsNeedConfirmation(annotations: unknown): boolean {
  const a =
    typeof annotations === "object" && annotations !== null && !Array.isArray(annotations)
      ? (annotations as Record<string, unknown>)
      : {};
  if (a.destructiveHint === true) return true;
  if (a.readOnlyHint === true) return false;
  if (a.readOnlyHint !== false) return true;
  return a.destructiveHint !== false;
}

/** Options of `MCPPermissionPolicy`. */
export interface MCPPermissionPolicyOptions {
  /**
   * Deny calls to a tool whose definition changed since it was approved, until
   * `registry.approve(identity)`. Requires `registry`.
   */
  pinToolDefinitions?: boolean;
  /** The registry whose approvals `pinToolDefinitions` consults. */
  registry?: MCPToolRegistry;
}

interface Rules {
  all?: string;
  exact: Map<string, string>;
  globs: { regex: RegExp; pattern: string }[];
  /** Deny rules match whatever the case (a server may look names up case-insensitively). */
  foldCase: boolean;
}

interface AgentRules extends KindRules<Rules> {
  /** Tools whose annotations say they may destroy need confirmation. */
  confirmDestructive: boolean;
  /** Undefined when the grant has no `resources` (no resource at all). */
  resources?: KindRules<ResourceRules>;
  /** Undefined when the grant has no `prompts` (no prompt at all). */
  prompts?: KindRules<Rules>;
}

interface KindRules<R> {
  allow: Map<string, R>;
  deny: Map<string, R>;
  /** Undefined when there are no confirm patterns (the common case: one lookup less per decision). */
  confirm: Map<string, R> | undefined;
  allowPatterns: string[];
  denyPatterns: string[];
  confirmPatterns: string[];
  /** Pattern -> the reason of a decision it made, quoted once when the policy is built. */
  allowReasons: Map<string, string>;
  denyReasons: Map<string, string>;
  confirmReasons: Map<string, string>;
}

/** What `match` and `matchResource` share: the pattern of `rules` that matches, if any. */
type Matcher<R> = (rules: Map<string, R>, serverName: string, name: string) => string | undefined;

function kindRules<R>(
  compileKind: (patterns: readonly string[], deny: boolean) => Map<string, R>,
  allowPatterns: string[],
  denyPatterns: string[],
  confirmPatterns: string[] = [],
): KindRules<R> {
  const reasons = (prefix: string, patterns: readonly string[]) =>
    new Map(patterns.map((pattern) => [pattern, `${prefix} ${shown(pattern)}`]));
  return {
    allow: compileKind(allowPatterns, false),
    deny: compileKind(denyPatterns, true),
    // Confirm patterns are compiled like allow patterns (exact spelling): they grant.
    confirm: confirmPatterns.length > 0 ? compileKind(confirmPatterns, false) : undefined,
    allowPatterns,
    denyPatterns,
    confirmPatterns,
    allowReasons: reasons("allowed by pattern", allowPatterns),
    denyReasons: reasons("denied by pattern", denyPatterns),
    confirmReasons: reasons("allowed after confirmation by pattern", confirmPatterns),
  };
}

interface ResourceRules {
  all?: string;
  exact: Map<string, string>;
  globs: { glob: string; pattern: string }[];
  /**
   * Deny rules match the loose forms of a URI (see `looseUri`), with and without its query: what a
   * lenient server may still read as the denied resource is denied too.
   */
  loose: boolean;
}

/** Prompt names as the policy accepts them: the tool-name characters, so look-alikes never pass. */
const PROMPT_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

// A URI shown in a reason: JSON-quoted with every control character escaped, and cut short (the URI
// came from a model or a server; the reason goes to logs and back to the model).
function shown(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The steps every decision shares once what is asked for is known to be well-formed: no grants of this
 * kind (deny by default), then a deny pattern, then an allow pattern. `kind` is "" for tools, else
 * "resource " or "prompt "; `subject` is what the messages quote. `find(patterns, serverName, name)`
 * looks up the pattern that matches (deny rules fold case and spelling as they were compiled to); it
 * comes with its arguments, so no closure is made per decision.
 */
function decideByGrants<R>(
  agent: string,
  rules: KindRules<R> | undefined,
  kind: "" | "resource " | "prompt ",
  subject: string,
  find: Matcher<R>,
  serverName: string,
  name: string,
): MCPPermissionDecision {
  if (!rules || (rules.allowPatterns.length === 0 && rules.confirmPatterns.length === 0)) {
    return {
      allowed: false,
      basis: "no-grants",
      reason: `agent "${String(agent)}" has no ${kind}grants (deny by default)`,
    };
  }
  const denied = find(rules.deny, serverName, name);
  if (denied) {
    return {
      allowed: false,
      basis: "deny",
      reason: rules.denyReasons.get(denied) ?? `denied by pattern ${shown(denied)}`,
      matchedPattern: denied,
    };
  }
  const confirmed = rules.confirm ? find(rules.confirm, serverName, name) : undefined;
  if (confirmed) {
    return {
      allowed: true,
      basis: "confirm",
      reason:
        rules.confirmReasons.get(confirmed) ?? `allowed after confirmation by pattern ${shown(confirmed)}`,
      matchedPattern: confirmed,
      confirmation: "pattern",
    };
  }
  const allowed = find(rules.allow, serverName, name);
  if (!allowed) {
    return {
      allowed: false,
      basis: "no-match",
      reason: `no ${kind}pattern granted to agent "${agent}" matches ${shown(subject)}`,
    };
  }
  return {
    allowed: true,
    basis: "allow",
    reason: rules.allowReasons.get(allowed) ?? `allowed by pattern ${shown(allowed)}`,
    matchedPattern: allowed,
  };
}

/**
 * `*` matches any run of characters (also none), everything else itself; on the raw strings, case
 * sensitive. Iterative with one backtrack point, so time is at most pattern length × text length.
 */
function globMatch(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (g < glob.length && glob[g] === "*") {
      star = g++;
      mark = t;
    } else if (g < glob.length && glob[g] === text[t]) {
      g++;
      t++;
    } else if (star !== -1) {
      g = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

/**
 * A URI as loosely as a lenient server may read it: percent-escapes decoded, Unicode in NFC, lower case.
 * Only deny rules use it, so it can only ever deny more.
 */
function looseUri(uri: string): string {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // Escapes that are not UTF-8: compare them as they are spelled.
  }
  return decoded.normalize("NFC").toLowerCase();
}

/** Resource patterns `<server>:<uri-pattern>` by server, their URI part in canonical spelling. */
function compileResources(patterns: readonly string[], deny: boolean): Map<string, ResourceRules> {
  const byServer = new Map<string, ResourceRules>();
  for (const pattern of patterns) {
    const colon = pattern.indexOf(":");
    const server = pattern.slice(0, colon);
    const raw = pattern.slice(colon + 1);
    const canonical = canonicalResourceUri(raw, { allowStar: true }).uri ?? raw;
    const uri = deny ? looseUri(canonical) : canonical;
    let rules = byServer.get(server);
    if (!rules) {
      rules = { exact: new Map(), globs: [], loose: deny };
      byServer.set(server, rules);
    }
    if (uri === "*") rules.all ??= pattern;
    else if (uri.includes("*")) rules.globs.push({ glob: uri, pattern });
    else if (!rules.exact.has(uri)) rules.exact.set(uri, pattern);
  }
  return byServer;
}

function matchResourceSpelling(server: ResourceRules, uri: string): string | undefined {
  const exact = server.exact.get(uri);
  if (exact) return exact;
  for (const glob of server.globs) if (globMatch(glob.glob, uri)) return glob.pattern;
  return undefined;
}

/** `uri` is canonical (`canonicalResourceUri`). */
function matchResource(
  rules: Map<string, ResourceRules>,
  serverName: string,
  uri: string,
): string | undefined {
  const server = rules.get(serverName);
  if (!server) return undefined;
  if (server.all) return server.all;
  if (!server.loose) return matchResourceSpelling(server, uri);
  // The URI, then without its query, then without a trailing slash (`path.resolve` drops it).
  const query = uri.indexOf("?");
  const base = query === -1 ? uri : uri.slice(0, query);
  const bare = base.endsWith("/") && !base.endsWith("//") ? base.slice(0, -1) : base;
  return (
    matchResourceSpelling(server, looseUri(uri)) ??
    (base === uri ? undefined : matchResourceSpelling(server, looseUri(base))) ??
    (bare === base ? undefined : matchResourceSpelling(server, looseUri(bare)))
  );
}

function globToRegExp(glob: string, foldCase: boolean): RegExp {
  const body = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, foldCase ? "si" : "s");
}

/** Tool patterns by server: exact and case-sensitive, as servers look tools up. */
function compile(patterns: readonly string[]): Map<string, Rules> {
  return compileNamed(patterns, false);
}

/** Prompt patterns by server: deny rules fold case (servers may look prompts up case-insensitively). */
function compilePrompts(patterns: readonly string[], deny: boolean): Map<string, Rules> {
  return compileNamed(patterns, deny);
}

function compileNamed(patterns: readonly string[], foldCase: boolean): Map<string, Rules> {
  const byServer = new Map<string, Rules>();
  for (const pattern of patterns) {
    const dot = pattern.indexOf(".");
    const server = pattern.slice(0, dot);
    const tool = pattern.slice(dot + 1);
    let rules = byServer.get(server);
    if (!rules) {
      rules = { exact: new Map(), globs: [], foldCase };
      byServer.set(server, rules);
    }
    const key = foldCase ? tool.toLowerCase() : tool;
    if (tool === "*") rules.all ??= pattern;
    else if (tool.includes("*")) rules.globs.push({ regex: globToRegExp(tool, foldCase), pattern });
    else if (!rules.exact.has(key)) rules.exact.set(key, pattern);
  }
  return byServer;
}

function match(rules: Map<string, Rules>, serverName: string, toolName: string): string | undefined {
  const server = rules.get(serverName);
  if (!server) return undefined;
  if (server.all) return server.all;
  const exact = server.exact.get(server.foldCase ? toolName.toLowerCase() : toolName);
  if (exact) return exact;
  for (const glob of server.globs) if (glob.regex.test(toolName)) return glob.pattern;
  return undefined;
}

/**
 * Deny by default: which agent may call which tool. Built from a plain object or from the config's
 * `permissions:` section. Patterns: `server.tool`, `server.*`, and `*` inside the tool part
 * (`github.get_*`); `*` never crosses into the server part, so `*` and `*.*` are refused. An agent's
 * `deny` patterns override its `confirm` patterns, which override its `allow` patterns; a `confirm`
 * pattern grants too, but the decision then says the call needs a person's confirmation
 * (`confirmation`). Matching is exact and case-sensitive.
 */
export class MCPPermissionPolicy {
  readonly #agents = new Map<string, AgentRules>();
  readonly #options: MCPPermissionPolicyOptions;

  constructor(grants: MCPPermissionGrants, options: MCPPermissionPolicyOptions = {}) {
    if (options.pinToolDefinitions && !options.registry) {
      throw new TypeError(
        "MCPPermissionPolicy: pinToolDefinitions needs the registry whose approvals it checks",
      );
    }
    this.#options = options;
    const issues: MCPConfigIssue[] = [];
    if (typeof grants !== "object" || grants === null || Array.isArray(grants)) {
      throw new MCPConfigError("Permission grants must be an object of agent name -> patterns", {
        code: "CONFIG_INVALID",
        source: "permissions",
      });
    }
    for (const [agent, grant] of Object.entries(grants)) {
      if (!AGENT_NAME_PATTERN.test(agent)) {
        issues.push({ path: agent, message: "expected an agent name of letters, digits, '-' and '_'" });
        continue;
      }
      const objectGrant = Array.isArray(grant)
        ? undefined
        : (grant as Exclude<MCPAgentGrant, readonly string[]>);
      const { allow, deny, confirm } = objectGrant ?? {
        allow: grant as readonly string[],
        deny: [] as readonly string[],
        confirm: undefined,
      };
      const check = (list: unknown, field: string, problemOf: (pattern: string) => string | undefined) => {
        if (list === undefined) return [];
        if (!Array.isArray(list)) {
          issues.push({ path: `${agent}${field}`, message: "expected a list of patterns" });
          return [];
        }
        return list.filter((pattern: unknown, i) => {
          const problem = typeof pattern === "string" ? problemOf(pattern) : "expected a string";
          if (problem) issues.push({ path: `${agent}${field}[${i}]`, message: problem });
          return !problem;
        }) as string[];
      };
      // `resources` / `prompts`: a list of allowed patterns, or { allow, deny }.
      const kind = (
        value: unknown,
        field: string,
        problemOf: (pattern: string) => string | undefined,
      ): MCPPatternLists | undefined => {
        if (value === undefined) return undefined;
        if (Array.isArray(value)) return { allow: check(value, field, problemOf), deny: [] };
        if (typeof value !== "object" || value === null) {
          issues.push({
            path: `${agent}${field}`,
            message: "expected a list of patterns, or { allow, deny } lists of patterns",
          });
          return undefined;
        }
        const lists = value as { allow?: unknown; deny?: unknown; confirm?: unknown };
        return {
          allow: check(lists.allow, `${field}.allow`, problemOf),
          deny: check(lists.deny, `${field}.deny`, problemOf),
          confirm: check(lists.confirm, `${field}.confirm`, problemOf),
        };
      };
      const allowList = check(allow, objectGrant ? ".allow" : "", permissionPatternProblem);
      const denyList = check(deny, ".deny", permissionPatternProblem);
      const confirmList = check(confirm, ".confirm", permissionPatternProblem);
      const confirmDestructive = objectGrant?.confirmDestructive;
      if (confirmDestructive !== undefined && typeof confirmDestructive !== "boolean") {
        issues.push({ path: `${agent}.confirmDestructive`, message: "expected true or false" });
      }
      const resources = kind(objectGrant?.resources, ".resources", resourcePatternProblem);
      const prompts = kind(objectGrant?.prompts, ".prompts", promptPatternProblem);
      this.#agents.set(agent, {
        ...kindRules(compile, allowList, denyList, confirmList),
        confirmDestructive: confirmDestructive === true,
        ...(resources && {
          resources: kindRules(compileResources, resources.allow, resources.deny, resources.confirm),
        }),
        ...(prompts && {
          prompts: kindRules(compilePrompts, prompts.allow, prompts.deny, prompts.confirm),
        }),
      });
    }
    if (issues.length > 0) {
      throw new MCPConfigError("Invalid permission grants", {
        code: "CONFIG_INVALID",
        source: "permissions",
        issues,
      });
    }
  }

  /** A policy from a loaded config's `permissions:` section (or the section itself). */
  static fromConfig(
    config: { permissions: MCPPermissionsConfig } | MCPPermissionsConfig,
    options: MCPPermissionPolicyOptions = {},
  ): MCPPermissionPolicy {
    const section =
      "permissions" in config && typeof config.permissions === "object" && !Array.isArray(config.permissions)
        ? (config as { permissions: MCPPermissionsConfig }).permissions
        : (config as MCPPermissionsConfig);
    return new MCPPermissionPolicy(section, options);
  }

  /**
   * Decide whether `agent` may call `identity` — computed afresh on every call, never cached. Give `tool`
   * (its annotations) for agents with `confirmDestructive`; without it (and without a `registry` option
   * that has the tool) the tool counts as one whose annotations say nothing, so it needs confirmation.
   */
  decide(agent: string, identity: string, tool?: MCPDecideToolInfo): MCPPermissionDecision {
    const parsed = parseToolIdentity(identity);
    if (!parsed) {
      return {
        allowed: false,
        basis: "invalid-identity",
        reason: `"${String(identity)}" is not a tool identity of the form <server>.<tool>`,
      };
    }
    const rules = typeof agent === "string" ? this.#agents.get(agent) : undefined;
    let decision = decideByGrants(agent, rules, "", identity, match, parsed.serverName, parsed.toolName);
    if (decision.allowed && !decision.confirmation && rules?.confirmDestructive) {
      const annotations = tool ? tool.annotations : this.#options.registry?.get(identity)?.annotations;
      if (annotationsNeedConfirmation(annotations)) {
        decision = {
          ...decision,
          reason: `${decision.reason}; confirmation needed: the tool's annotations do not say it is read-only (confirmDestructive)`,
          confirmation: "annotations",
        };
      }
    }
    if (
      decision.allowed &&
      this.#options.pinToolDefinitions &&
      this.#options.registry?.hasUnapprovedChange(identity)
    ) {
      return {
        allowed: false,
        basis: "definition-changed",
        reason: `the definition of "${identity}" changed since it was approved; re-approve it with registry.approve()`,
        ...(decision.matchedPattern ? { matchedPattern: decision.matchedPattern } : {}),
      };
    }
    return decision;
  }

  /**
   * Decide whether `agent` may read the resource `uri` of server `serverName` (`resources/read`, and
   * subscriptions). Deny by default: an agent whose grant has no `resources` gets none, whatever its
   * tool grants. Patterns are `<server>:<uri-pattern>`; `*` matches any run of characters.
   *
   * The decision is made on the URI's canonical spelling (`canonicalResourceUri`: scheme and host in
   * lower case, no fragment, unreserved escapes decoded, `.` segments removed, `file://localhost/` as
   * `file:///`), which the decision returns as `resourceUri`: send that one. A URI a server could read
   * as another resource — a `..` or empty segment, a backslash, an encoded `/`, `\`, `%` or control
   * character — is denied (`invalid-identity`). Deny patterns also match whatever the case and the
   * escapes, with or without the URI's query and trailing slash (a lenient server may ignore them);
   * allow patterns match the canonical URI exactly. Computed afresh on every call, never cached.
   */
  decideResource(agent: string, serverName: string, uri: string): MCPPermissionDecision {
    if (typeof serverName !== "string" || !SERVER_NAME_PATTERN.test(serverName)) {
      return {
        allowed: false,
        basis: "invalid-identity",
        reason: `${shown(String(serverName))} is not a server name`,
      };
    }
    if (typeof uri !== "string") {
      return { allowed: false, basis: "invalid-identity", reason: "the resource URI is not a string" };
    }
    const canonical = canonicalResourceUri(uri);
    if (canonical.problem !== undefined) {
      return {
        allowed: false,
        basis: "invalid-identity",
        reason: `the resource URI ${shown(uri)} of server "${serverName}" is refused: it ${canonical.problem} (a server could read it as another resource)`,
      };
    }
    const decision = decideByGrants(
      agent,
      typeof agent === "string" ? this.#agents.get(agent)?.resources : undefined,
      "resource ",
      `${serverName}:${canonical.uri}`,
      matchResource,
      serverName,
      canonical.uri,
    );
    return { ...decision, resourceUri: canonical.uri };
  }

  /**
   * Decide whether `agent` may get the prompt `promptName` of server `serverName` (`prompts/get`).
   * Deny by default: an agent whose grant has no `prompts` gets none, whatever its tool grants.
   * Patterns as for tools: `github.review_code`, `github.*`, `github.review_*`; deny patterns match
   * whatever the case (a server may look prompts up case-insensitively). A prompt name outside the
   * tool-name characters (`[A-Za-z0-9_.-/]`, 1 to 128) is denied (`invalid-identity`).
   * Computed afresh on every call, never cached.
   */
  decidePrompt(agent: string, serverName: string, promptName: string): MCPPermissionDecision {
    if (
      typeof serverName !== "string" ||
      typeof promptName !== "string" ||
      !SERVER_NAME_PATTERN.test(serverName) ||
      !PROMPT_NAME.test(promptName)
    ) {
      return {
        allowed: false,
        basis: "invalid-identity",
        reason: `${shown(`${String(serverName)}.${String(promptName)}`)} is not a prompt of the form <server>.<prompt>`,
      };
    }
    return decideByGrants(
      agent,
      typeof agent === "string" ? this.#agents.get(agent)?.prompts : undefined,
      "prompt ",
      `${serverName}.${promptName}`,
      match,
      serverName,
      promptName,
    );
  }

  /** `decide(agent, identity).allowed`. */
  isAuthorized(agent: string, identity: string): boolean {
    return this.decide(agent, identity).allowed;
  }

  /** The tools among `tools` that `agent` may call. */
  allowedTools<T extends Pick<MCPToolDescriptor, "identity">>(agent: string, tools: Iterable<T>): T[] {
    const out: T[] = [];
    for (const tool of tools) if (this.isAuthorized(agent, tool.identity)) out.push(tool);
    return out;
  }

  /** Agents that have an entry. */
  agents(): string[] {
    return [...this.#agents.keys()];
  }

  /** The grants as plain data (tool allow, deny and confirm lists per agent, `confirmDestructive`, and its resource and prompt lists if any). */
  toJSON(): MCPPermissionsConfig {
    const out: MCPPermissionsConfig = {};
    const lists = (rules: {
      allowPatterns: string[];
      denyPatterns: string[];
      confirmPatterns: string[];
    }): MCPPatternLists => ({
      allow: [...rules.allowPatterns],
      deny: [...rules.denyPatterns],
      ...(rules.confirmPatterns.length > 0 ? { confirm: [...rules.confirmPatterns] } : {}),
    });
    for (const [agent, rules] of this.#agents) {
      out[agent] = {
        ...lists(rules),
        ...(rules.confirmDestructive ? { confirmDestructive: true } : {}),
        ...(rules.resources && { resources: lists(rules.resources) }),
        ...(rules.prompts && { prompts: lists(rules.prompts) }),
      };
    }
    return out;
  }
}
