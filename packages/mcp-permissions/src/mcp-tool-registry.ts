import { MCPDuplicateToolError } from "./errors.js";
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
}

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
  readonly #listeners = new Set<(change: MCPToolDefinitionChange) => void>();

  /**
   * Add a server's tools. The same identity from the same server again is a no-op when unchanged (and a
   * definition change when not); an identity owned by another server → `MCPDuplicateToolError`.
   */
  register(serverName: string, tools: Iterable<MCPToolDescriptor>): void {
    const incoming = this.#validate(serverName, tools);
    for (const entry of incoming.values()) this.#put(entry);
  }

  /**
   * Replace everything a server offers (after a refresh or `tools/list_changed`): tools no longer listed
   * are removed, new ones added, changed ones updated and reported.
   */
  replaceServer(serverName: string, tools: Iterable<MCPToolDescriptor>): MCPToolRegistryDiff {
    const incoming = this.#validate(serverName, tools);
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
    return diff;
  }

  /** Remove every tool of a server (its approvals are kept). Returns the removed identities. */
  unregisterServer(serverName: string): string[] {
    const removed: string[] = [];
    for (const [identity, entry] of this.#tools) {
      if (entry.tool.serverName === serverName) {
        this.#tools.delete(identity);
        removed.push(identity);
      }
    }
    return removed;
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
  list(filter: { server?: string } = {}): MCPToolDescriptor[] {
    const out: MCPToolDescriptor[] = [];
    for (const { tool } of this.#tools.values()) {
      if (filter.server === undefined || tool.serverName === filter.server) out.push(tool);
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

  /** Listen for definition changes of registered tools; returns the function that unsubscribes. */
  onDefinitionChanged(listener: (change: MCPToolDefinitionChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #validate(serverName: string, tools: Iterable<MCPToolDescriptor>): Map<string, Entry> {
    const incoming = new Map<string, Entry>();
    for (const tool of tools) {
      const identity = toolIdentity(serverName, tool.toolName);
      if (tool.serverName !== serverName || tool.identity !== identity) {
        throw new MCPDuplicateToolError(
          `Server "${serverName}" cannot register "${tool.identity}": an identity belongs to the server named in it (expected "${identity}")`,
          { toolName: tool.identity, serverName, ownerServerName: tool.serverName },
        );
      }
      const owner = this.#tools.get(identity)?.tool.serverName;
      if (owner !== undefined && owner !== serverName) {
        throw new MCPDuplicateToolError(`Tool "${identity}" is already registered by server "${owner}"`, {
          toolName: identity,
          serverName,
          ownerServerName: owner,
        });
      }
      const entry = { tool, key: definitionKey(tool) };
      const twin = incoming.get(identity);
      if (twin && twin.key !== entry.key) {
        throw new MCPDuplicateToolError(
          `Server "${serverName}" lists tool "${tool.toolName}" twice with different definitions`,
          { toolName: identity, serverName },
        );
      }
      incoming.set(identity, entry);
    }
    return incoming;
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
    const change: MCPToolDefinitionChange = {
      identity,
      serverName: entry.tool.serverName,
      toolName: entry.tool.toolName,
      previousFingerprint: shortHash(approved),
      fingerprint: shortHash(entry.key),
    };
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // A failing listener must not break registration.
      }
    }
  }
}
