/** The name rule most model providers enforce for tool (function) names. */
export const MODEL_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(7, "0").slice(-7);
}

/**
 * The readable model-safe form of an identity: the first dot becomes `__`, any other character a model
 * name may not hold becomes `_` (`filesystem.read_text_file` → `filesystem__read_text_file`).
 */
export function modelToolName(identity: string): string {
  const dot = identity.indexOf(".");
  const joined = dot === -1 ? identity : `${identity.slice(0, dot)}__${identity.slice(dot + 1)}`;
  return joined.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/**
 * A two-way map between MCP tool identities and the names given to a model. Names follow
 * `MODEL_TOOL_NAME_PATTERN`, are readable where possible, and are collision-free: when two identities
 * would get the same name, or a name would pass 64 characters, a short hash of the identity is appended.
 */
export class MCPToolNameMap {
  readonly #byIdentity = new Map<string, string>();
  readonly #byName = new Map<string, string>();

  constructor(identities: Iterable<string> = []) {
    for (const identity of identities) this.add(identity);
  }

  /** Add an identity (idempotent) and return its model name. */
  add(identity: string): string {
    const existing = this.#byIdentity.get(identity);
    if (existing) return existing;
    let name = modelToolName(identity);
    if (name.length > 64 || this.#byName.has(name) || name.length === 0) {
      const suffix = `_${hash(identity)}`;
      name = `${name.slice(0, 64 - suffix.length)}${suffix}`;
      for (let n = 1; this.#byName.has(name); n++) {
        const longer = `_${hash(`${identity}#${n}`)}`;
        name = `${modelToolName(identity).slice(0, 64 - longer.length)}${longer}`;
      }
    }
    this.#byIdentity.set(identity, name);
    this.#byName.set(name, identity);
    return name;
  }

  /** The model name of an identity, if added. */
  toModelName(identity: string): string | undefined {
    return this.#byIdentity.get(identity);
  }

  /** The identity behind a model name, or undefined for a name this map never gave out. */
  toIdentity(modelName: string): string | undefined {
    return this.#byName.get(modelName);
  }

  /** Every `[identity, modelName]` pair. */
  entries(): [string, string][] {
    return [...this.#byIdentity.entries()];
  }
}
