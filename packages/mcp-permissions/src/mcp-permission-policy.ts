import {
  AGENT_NAME_PATTERN,
  MCPConfigError,
  type MCPConfigIssue,
  type MCPPermissionsConfig,
  permissionPatternProblem,
} from "@agentforge/mcp-config";
import type { MCPToolRegistry } from "./mcp-tool-registry.js";
import { type MCPToolDescriptor, parseToolIdentity } from "./tool-identity.js";

/** One agent's grants: a list of allowed patterns, or allowed and denied patterns. */
export type MCPAgentGrant =
  | readonly string[]
  | { readonly allow?: readonly string[]; readonly deny?: readonly string[] };

/** Agent name -> grant, e.g. `{ documentation: ["filesystem.*", "local-tools.echo"] }`. */
export type MCPPermissionGrants = Readonly<Record<string, MCPAgentGrant>>;

/** Why a decision came out the way it did. */
export type MCPPermissionBasis =
  /** An allow pattern matched and no deny pattern did. */
  | "allow"
  /** A deny pattern matched (deny overrides allow). */
  | "deny"
  /** The agent has no entry, or an empty one. */
  | "no-grants"
  /** The agent has grants, but none matches the identity. */
  | "no-match"
  /** The identity is not a well-formed `<server>.<tool>`. */
  | "invalid-identity"
  /** The tool's definition changed since it was approved (`pinToolDefinitions`). */
  | "definition-changed";

/** The answer of `decide`: allowed or not, and why. */
export interface MCPPermissionDecision {
  allowed: boolean;
  basis: MCPPermissionBasis;
  /** A sentence for logs and for the model. */
  reason: string;
  /** The pattern that decided, for `allow` and `deny`. */
  matchedPattern?: string;
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
}

interface AgentRules {
  allow: Map<string, Rules>;
  deny: Map<string, Rules>;
  allowPatterns: string[];
  denyPatterns: string[];
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "s");
}

function compile(patterns: readonly string[]): Map<string, Rules> {
  const byServer = new Map<string, Rules>();
  for (const pattern of patterns) {
    const dot = pattern.indexOf(".");
    const server = pattern.slice(0, dot);
    const tool = pattern.slice(dot + 1);
    let rules = byServer.get(server);
    if (!rules) {
      rules = { exact: new Map(), globs: [] };
      byServer.set(server, rules);
    }
    if (tool === "*") rules.all ??= pattern;
    else if (tool.includes("*")) rules.globs.push({ regex: globToRegExp(tool), pattern });
    else if (!rules.exact.has(tool)) rules.exact.set(tool, pattern);
  }
  return byServer;
}

function match(rules: Map<string, Rules>, serverName: string, toolName: string): string | undefined {
  const server = rules.get(serverName);
  if (!server) return undefined;
  if (server.all) return server.all;
  const exact = server.exact.get(toolName);
  if (exact) return exact;
  for (const glob of server.globs) if (glob.regex.test(toolName)) return glob.pattern;
  return undefined;
}

/**
 * Deny by default: which agent may call which tool. Built from a plain object or from the config's
 * `permissions:` section. Patterns: `server.tool`, `server.*`, and `*` inside the tool part
 * (`github.get_*`); `*` never crosses into the server part, so `*` and `*.*` are refused. An agent's
 * `deny` patterns override its `allow` patterns. Matching is exact and case-sensitive.
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
      const { allow, deny } = Array.isArray(grant)
        ? { allow: grant as readonly string[], deny: [] as readonly string[] }
        : (grant as { allow?: readonly string[]; deny?: readonly string[] });
      const check = (list: unknown, field: string): string[] => {
        if (list === undefined) return [];
        if (!Array.isArray(list)) {
          issues.push({ path: `${agent}${field}`, message: "expected a list of patterns" });
          return [];
        }
        return list.filter((pattern: unknown, i) => {
          const problem =
            typeof pattern === "string" ? permissionPatternProblem(pattern) : "expected a string";
          if (problem) issues.push({ path: `${agent}${field}[${i}]`, message: problem });
          return !problem;
        });
      };
      const allowList = check(allow, Array.isArray(grant) ? "" : ".allow");
      const denyList = check(deny, ".deny");
      this.#agents.set(agent, {
        allow: compile(allowList),
        deny: compile(denyList),
        allowPatterns: allowList,
        denyPatterns: denyList,
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

  /** Decide whether `agent` may call `identity` — computed afresh on every call, never cached. */
  decide(agent: string, identity: string): MCPPermissionDecision {
    const parsed = parseToolIdentity(identity);
    if (!parsed) {
      return {
        allowed: false,
        basis: "invalid-identity",
        reason: `"${String(identity)}" is not a tool identity of the form <server>.<tool>`,
      };
    }
    const rules = typeof agent === "string" ? this.#agents.get(agent) : undefined;
    if (!rules || rules.allowPatterns.length === 0) {
      return {
        allowed: false,
        basis: "no-grants",
        reason: `agent "${String(agent)}" has no grants (deny by default)`,
      };
    }
    const denied = match(rules.deny, parsed.serverName, parsed.toolName);
    if (denied) {
      return {
        allowed: false,
        basis: "deny",
        reason: `denied by pattern "${denied}"`,
        matchedPattern: denied,
      };
    }
    const allowed = match(rules.allow, parsed.serverName, parsed.toolName);
    if (!allowed) {
      return {
        allowed: false,
        basis: "no-match",
        reason: `no pattern granted to agent "${agent}" matches "${identity}"`,
      };
    }
    if (this.#options.pinToolDefinitions && this.#options.registry?.hasUnapprovedChange(identity)) {
      return {
        allowed: false,
        basis: "definition-changed",
        reason: `the definition of "${identity}" changed since it was approved; re-approve it with registry.approve()`,
        matchedPattern: allowed,
      };
    }
    return {
      allowed: true,
      basis: "allow",
      reason: `allowed by pattern "${allowed}"`,
      matchedPattern: allowed,
    };
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

  /** The grants as plain data (allow and deny lists per agent). */
  toJSON(): MCPPermissionsConfig {
    const out: MCPPermissionsConfig = {};
    for (const [agent, rules] of this.#agents)
      out[agent] = { allow: [...rules.allowPatterns], deny: [...rules.denyPatterns] };
    return out;
  }
}
