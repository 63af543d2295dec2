import { MCPEventEmitter, reportListenerError, SERVER_NAME_PATTERN } from "@agentforge/mcp-config";
import { MCPApprovalsSnapshotError, MCPDuplicateToolError } from "./errors.js";
import { definitionKey, shortHash } from "./internal/fingerprint.js";
import { type MCPToolDescriptor, toolIdentity } from "./tool-identity.js";

/** Sent to registry listeners when a registered tool comes back with a different definition. */
export interface MCPToolDefinitionChange {
  /** `<server>.<tool>`. */
  identity: string;
  serverName: string;
  toolName: string;
  /** Fingerprint of the definition that was approved. */
  previousFingerprint: string;
  /** Fingerprint of the definition now registered. */
  fingerprint: string;
}

/** What `replaceServer` changed. */
export interface MCPToolRegistryDiff {
  added: string[];
  removed: string[];
  /** Identities whose definition differs from the one registered before. */
  changed: string[];
  /** Set when the list was rejected as a whole (then `removed` holds every tool the server had). */
  rejected?: MCPDuplicateToolError;
}

/** A server whose latest tool list was rejected: none of its tools are registered until a good list comes. */
export interface MCPServerRejection {
  serverName: string;
  /** Why: a tool name listed twice, or an identity that names another server. */
  error: MCPDuplicateToolError;
  /** ISO 8601 time of the rejection. */
  rejectedAt: string;
}

/** Events of `MCPToolRegistry.on`, and their payloads. */
export interface MCPToolRegistryEvents {
  /** A registered tool came back with a definition other than the approved one. */
  definitionChanged: MCPToolDefinitionChange;
  /** A server's tool list was rejected (its tools were removed). Sent again only when the reason changes. */
  serverRejected: MCPServerRejection;
  /** A server that was rejected sent an acceptable list; its tools are registered again. */
  serverAccepted: { serverName: string };
  /**
   * A listener of another registry event threw (or its promise rejected). Registration went on; with no
   * `listenerError` listener the failure becomes a process warning instead.
   */
  listenerError: MCPRegistryListenerError;
}

/** A registry listener that failed: which event it was listening to, and what it threw. */
export interface MCPRegistryListenerError {
  /** The event whose listener failed. */
  event: Exclude<keyof MCPToolRegistryEvents, "listenerError">;
  /** What the listener threw (or its promise rejected with). */
  error: unknown;
}

/** The approvals of a registry as plain JSON (`exportApprovals`), to keep across restarts. */
export interface MCPApprovalsSnapshot {
  version: 1;
  approvals: {
    /** `<server>.<tool>`. */
    identity: string;
    /** `shortHash(definition)`, for display and as a checksum. */
    fingerprint: string;
    /** The canonical form of the approved definition. */
    definition: string;
  }[];
}

const MAX_SNAPSHOT_APPROVALS = 100_000;

const REGISTRY_EVENTS: ReadonlySet<PropertyKey> = new Set<keyof MCPToolRegistryEvents>([
  "definitionChanged",
  "serverRejected",
  "serverAccepted",
  "listenerError",
]);

interface Entry {
  tool: MCPToolDescriptor;
  key: string;
}

/**
 * Identity -> tool. Each identity belongs to one server; a server's tools are replaced as a whole on
 * refresh. Every definition is fingerprinted: the first one seen is approved (trust on first use), and a
 * later different one is flagged until `approve(identity)` — the policy can deny such calls
 * (`pinToolDefinitions`), a defence against a server that swaps a tool's meaning after it was granted.
 */
export class MCPToolRegistry {
  readonly #tools = new Map<string, Entry>();
  /** identity -> approved definition key; kept when a tool disappears, so remove + re-add is still caught. */
  readonly #approved = new Map<string, string>();
  readonly #rejected = new Map<string, MCPServerRejection>();
  readonly #events: MCPEventEmitter<MCPToolRegistryEvents> = new MCPEventEmitter<MCPToolRegistryEvents>({
    onListenerError: (error, event) => {
      if (event !== "listenerError" && this.#events.listenerCount("listenerError") > 0) {
        this.#events.emit("listenerError", { event, error });
      } else {
        reportListenerError(error, `MCPToolRegistry ${event}`);
      }
    },
  });

  /** A registry whose approvals come from `exportApprovals()` of an earlier one (e.g. another process). */
  static fromSnapshot(snapshot: unknown): MCPToolRegistry {
    const registry = new MCPToolRegistry();
    registry.restoreApprovals(snapshot);
    return registry;
  }

  /**
   * Add a server's tools, all or none. The same identity from the same server again is a no-op when
   * unchanged (and a definition change when not). Throws `MCPDuplicateToolError` for a name listed twice
   * or an identity that names another server; for lists a server sent, prefer `replaceServer`, which
   * never throws.
   */
  register(serverName: string, tools: Iterable<MCPToolDescriptor>): void {
    const incoming = this.#validate(serverName, tools);
    for (const entry of incoming.values()) this.#put(entry);
  }

  /**
   * Replace everything a server offers (after a refresh or `tools/list_changed`): tools no longer listed
   * are removed, new ones added, changed ones updated and reported. Never throws for what the list holds:
   * a list with a tool name twice, or a descriptor naming another server, is REJECTED as a whole — every
   * tool of that server is removed (nothing stale stays callable), `rejection(serverName)` says why, and
   * `serverRejected` listeners hear it. Other servers are untouched. A later acceptable list clears the
   * rejection (`serverAccepted`).
   */
  replaceServer(serverName: string, tools: Iterable<MCPToolDescriptor>): MCPToolRegistryDiff {
    let incoming: Map<string, Entry>;
    try {
      incoming = this.#validate(serverName, tools);
    } catch (error) {
      if (!MCPDuplicateToolError.isInstance(error)) throw error;
      return this.#reject(serverName, error);
    }
    const diff: MCPToolRegistryDiff = { added: [], removed: [], changed: [] };
    for (const [identity, entry] of this.#tools) {
      if (entry.tool.serverName === serverName && !incoming.has(identity)) {
        this.#tools.delete(identity);
        diff.removed.push(identity);
      }
    }
    for (const [identity, entry] of incoming) {
      const before = this.#tools.get(identity);
      if (!before) diff.added.push(identity);
      else if (before.key !== entry.key) diff.changed.push(identity);
      this.#put(entry);
    }
    if (this.#rejected.delete(serverName)) this.#emit("serverAccepted", { serverName });
    return diff;
  }

  /**
   * Remove every tool of a server (its approvals are kept) and forget a rejection of it. Returns the
   * removed identities.
   */
  unregisterServer(serverName: string): string[] {
    this.#rejected.delete(serverName);
    return this.#removeServer(serverName);
  }

  /** Servers whose latest tool list was rejected, with the reason. */
  rejectedServers(): MCPServerRejection[] {
    return [...this.#rejected.values()];
  }

  /** The rejection of a server's latest tool list, or undefined when it was accepted (or never seen). */
  rejection(serverName: string): MCPServerRejection | undefined {
    return this.#rejected.get(serverName);
  }

  /**
   * Subscribe to a registry event; returns the function that unsubscribes. A listener that throws never
   * breaks registration: it is reported as a `listenerError` event (a process warning when nobody
   * listens to those).
   */
  on<E extends keyof MCPToolRegistryEvents>(
    event: E,
    listener: (payload: MCPToolRegistryEvents[E]) => unknown,
  ): () => void {
    if (!REGISTRY_EVENTS.has(event)) {
      throw new TypeError(
        `MCPToolRegistry.on: unknown event "${String(event)}" (events: ${[...REGISTRY_EVENTS].join(", ")})`,
      );
    }
    return this.#events.on(event, listener);
  }

  /**
   * The approved definitions as plain JSON, to keep in a state folder: a registry restored from it
   * (`restoreApprovals` / `fromSnapshot`) in a new process flags a tool whose definition changed meanwhile.
   */
  exportApprovals(): MCPApprovalsSnapshot {
    const approvals: MCPApprovalsSnapshot["approvals"] = [];
    for (const [identity, definition] of this.#approved) {
      approvals.push({ identity, fingerprint: shortHash(definition), definition });
    }
    return { version: 1, approvals };
  }

  /**
   * Take over the approvals of a snapshot (entries it holds replace this registry's; others are kept).
   * Registered tools whose definition differs from a restored approval are reported to
   * `definitionChanged` listeners and await `approve`. Throws `MCPApprovalsSnapshotError` for anything
   * that is not a snapshot, before changing anything. Returns the number of approvals restored.
   */
  restoreApprovals(snapshot: unknown): number {
    const entries = parseSnapshot(snapshot);
    for (const { identity, definition } of entries) this.#approved.set(identity, definition);
    for (const { identity, definition } of entries) {
      const entry = this.#tools.get(identity);
      if (entry && entry.key !== definition) this.#reportChange(entry, definition);
    }
    return entries.length;
  }

  /** The tool registered under `identity`, or undefined. */
  get(identity: string): MCPToolDescriptor | undefined {
    return this.#tools.get(identity)?.tool;
  }

  /** Whether `identity` is registered. */
  has(identity: string): boolean {
    return this.#tools.has(identity);
  }

  /** Registered tools, in registration order, optionally of one server. */
  list(filter: { serverName?: string } = {}): MCPToolDescriptor[] {
    const out: MCPToolDescriptor[] = [];
    for (const { tool } of this.#tools.values()) {
      if (filter.serverName === undefined || tool.serverName === filter.serverName) out.push(tool);
    }
    return out;
  }

  /** Names of the servers that have at least one registered tool. */
  servers(): string[] {
    return [...new Set([...this.#tools.values()].map((e) => e.tool.serverName))];
  }

  /** Number of registered tools. */
  get size(): number {
    return this.#tools.size;
  }

  /** A short stable fingerprint of the registered definition, or undefined when not registered. */
  fingerprint(identity: string): string | undefined {
    const entry = this.#tools.get(identity);
    return entry ? shortHash(entry.key) : undefined;
  }

  /** True when the registered definition differs from the approved one. */
  hasUnapprovedChange(identity: string): boolean {
    const entry = this.#tools.get(identity);
    const approved = this.#approved.get(identity);
    return entry !== undefined && approved !== undefined && approved !== entry.key;
  }

  /** Identities whose current definition waits for `approve`. */
  pendingApprovals(): string[] {
    return [...this.#tools.keys()].filter((identity) => this.hasUnapprovedChange(identity));
  }

  /** Accept the currently registered definition of `identity`. Returns false when it is not registered. */
  approve(identity: string): boolean {
    const entry = this.#tools.get(identity);
    if (!entry) return false;
    this.#approved.set(identity, entry.key);
    return true;
  }

  #validate(serverName: string, tools: Iterable<MCPToolDescriptor>): Map<string, Entry> {
    const incoming = new Map<string, Entry>();
    for (const tool of tools) {
      const identity = toolIdentity(serverName, tool.toolName);
      if (tool.serverName !== serverName || tool.identity !== identity) {
        throw new MCPDuplicateToolError(
          `Server "${serverName}" cannot register "${tool.identity}": an identity belongs to the server named in it (expected "${identity}")`,
          { toolName: tool.toolName, identity: tool.identity, serverName, ownerServerName: tool.serverName },
        );
      }
      const owner = this.#tools.get(identity)?.tool.serverName;
      if (owner !== undefined && owner !== serverName) {
        throw new MCPDuplicateToolError(`Tool "${identity}" is already registered by server "${owner}"`, {
          toolName: tool.toolName,
          identity,
          serverName,
          ownerServerName: owner,
        });
      }
      if (incoming.has(identity)) {
        throw new MCPDuplicateToolError(
          `Server "${serverName}" lists tool "${tool.toolName}" more than once; tool names must be unique per server, so none of its tools were registered. Fix the server's tools/list.`,
          { toolName: tool.toolName, identity, serverName },
        );
      }
      incoming.set(identity, { tool, key: definitionKey(tool) });
    }
    return incoming;
  }

  #reject(serverName: string, error: MCPDuplicateToolError): MCPToolRegistryDiff {
    const removed = this.#removeServer(serverName);
    const before = this.#rejected.get(serverName);
    const rejection: MCPServerRejection = {
      serverName,
      error,
      rejectedAt:
        before && before.error.message === error.message ? before.rejectedAt : new Date().toISOString(),
    };
    this.#rejected.set(serverName, rejection);
    if (!before || before.error.message !== error.message) this.#emit("serverRejected", rejection);
    return { added: [], removed, changed: [], rejected: error };
  }

  #removeServer(serverName: string): string[] {
    const removed: string[] = [];
    for (const [identity, entry] of this.#tools) {
      if (entry.tool.serverName === serverName) {
        this.#tools.delete(identity);
        removed.push(identity);
      }
    }
    return removed;
  }

  #emit<E extends keyof MCPToolRegistryEvents>(event: E, payload: MCPToolRegistryEvents[E]): void {
    this.#events.emit(event, payload);
  }

  #reportChange(entry: Entry, approved: string): void {
    this.#emit("definitionChanged", {
      identity: entry.tool.identity,
      serverName: entry.tool.serverName,
      toolName: entry.tool.toolName,
      previousFingerprint: shortHash(approved),
      fingerprint: shortHash(entry.key),
    });
  }

  #put(entry: Entry): void {
    const identity = entry.tool.identity;
    const previous = this.#tools.get(identity)?.key;
    this.#tools.set(identity, entry);
    const approved = this.#approved.get(identity);
    if (approved === undefined) {
      this.#approved.set(identity, entry.key);
      return;
    }
    // Report a change once: when the definition differs from the approved one and from the last one seen.
    if (approved === entry.key || previous === entry.key) return;
    this.#reportChange(entry, approved);
  }
}

const MAX_SNAPSHOT_IDENTITY = 4096;

function isSnapshotIdentity(identity: unknown): identity is string {
  if (typeof identity !== "string" || identity.length > MAX_SNAPSHOT_IDENTITY) return false;
  const dot = identity.indexOf(".");
  return dot > 0 && dot < identity.length - 1 && SERVER_NAME_PATTERN.test(identity.slice(0, dot));
}

function parseSnapshot(snapshot: unknown): { identity: string; definition: string }[] {
  if (typeof snapshot !== "object" || snapshot === null || Array.isArray(snapshot)) {
    throw new MCPApprovalsSnapshotError("(root)", "an object { version: 1, approvals: [...] }");
  }
  const { version, approvals } = snapshot as { version?: unknown; approvals?: unknown };
  if (version !== 1) throw new MCPApprovalsSnapshotError("version", "1");
  if (!Array.isArray(approvals)) throw new MCPApprovalsSnapshotError("approvals", "an array");
  if (approvals.length > MAX_SNAPSHOT_APPROVALS) {
    throw new MCPApprovalsSnapshotError("approvals", `at most ${MAX_SNAPSHOT_APPROVALS} entries`);
  }
  return approvals.map((item: unknown, i) => {
    const at = `approvals[${i}]`;
    if (typeof item !== "object" || item === null) throw new MCPApprovalsSnapshotError(at, "an object");
    const { identity, definition, fingerprint } = item as Record<string, unknown>;
    // The registry keeps whatever tool names servers send (as data), so a snapshot holds them too: only
    // the server part must be a server name. What the policy allows is decided elsewhere.
    if (!isSnapshotIdentity(identity)) {
      throw new MCPApprovalsSnapshotError(`${at}.identity`, 'a tool identity "<server>.<tool>"');
    }
    if (typeof definition !== "string") throw new MCPApprovalsSnapshotError(`${at}.definition`, "a string");
    if (fingerprint !== undefined && fingerprint !== shortHash(definition)) {
      throw new MCPApprovalsSnapshotError(`${at}.fingerprint`, "the fingerprint of its definition");
    }
    return { identity, definition };
  });
}
