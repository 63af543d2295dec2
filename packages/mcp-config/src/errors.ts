/**
 * The error root shared by every @agentforge package, and the config package's own error.
 *
 * `instanceof` fails when two copies of a package are installed side by side, so every class also has
 * a static `isInstance()` that checks a `Symbol.for` brand set by the constructor.
 */

const BRAND_PREFIX = "@agentforge/mcp-error:";

function brandOf(ctor: { readonly errorName?: string }): symbol | undefined {
  return Object.hasOwn(ctor, "errorName") && ctor.errorName
    ? Symbol.for(BRAND_PREFIX + ctor.errorName)
    : undefined;
}

/** Options every MCPError accepts: a stable code and, when wrapping, the original error. */
export interface MCPErrorOptions<Code extends string = string> {
  code: Code;
  cause?: unknown;
}

/**
 * Root of every error thrown by @agentforge packages. Switch on `code`; never parse `message`.
 * Subclasses add the context that matters for their domain (server name, tool name, YAML position).
 */
export class MCPError<Code extends string = string> extends Error {
  /** Brand name used by `isInstance`; each subclass sets its own. */
  static readonly errorName: string = "MCPError";

  /** A short SCREAMING_SNAKE string that says what happened, stable across releases. */
  readonly code: Code;

  constructor(message: string, options: MCPErrorOptions<Code>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    // Brand the instance with every class in its chain, so `MCPError.isInstance(configError)` holds.
    for (let ctor: unknown = new.target; typeof ctor === "function" && ctor !== Error; ) {
      const brand = brandOf(ctor as { errorName?: string });
      if (brand) Object.defineProperty(this, brand, { value: true });
      ctor = Object.getPrototypeOf(ctor);
    }
    Object.defineProperty(this, "name", {
      value: (new.target as { errorName?: string }).errorName ?? "MCPError",
      enumerable: false,
      configurable: true,
      writable: true,
    });
  }

  /**
   * True when `value` is an instance of this class (or a subclass), even when it comes from another
   * installed copy of the package.
   */
  static isInstance<T extends abstract new (...args: never[]) => MCPError>(
    this: T & { readonly errorName: string },
    value: unknown,
  ): value is InstanceType<T> {
    if (typeof value !== "object" || value === null) return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass isInstance was called on.
    const brand = Symbol.for(BRAND_PREFIX + this.errorName);
    return (value as Record<symbol, unknown>)[brand] === true;
  }

  /** A JSON-safe view (name, code, message and context fields) for logs and API responses. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== "code" && value !== undefined) out[key] = value;
    }
    return out;
  }
}

/** Codes of `MCPConfigError`. */
export type MCPConfigErrorCode =
  /** The file does not exist. */
  | "CONFIG_NOT_FOUND"
  /** The path exists but cannot be read as a file (a directory, no permission, I/O error). */
  | "CONFIG_UNREADABLE"
  /** The file or text is larger than the loader accepts. */
  | "CONFIG_TOO_LARGE"
  /** The text is not well-formed YAML or JSON, or is empty. */
  | "CONFIG_SYNTAX"
  /** Well-formed, but breaks the schema or a rule (unknown key, wrong type, duplicate name, ...). */
  | "CONFIG_INVALID"
  /** A `${VAR}` placeholder names an environment variable that is not set and has no default. */
  | "CONFIG_VARIABLE_UNSET";

/** One problem found in a config file, with where it is. */
export interface MCPConfigIssue {
  /** Field path in the file, e.g. `servers[2].auth.type`; empty for the whole document. */
  path: string;
  /** What is wrong and what was expected. Never contains an environment variable's value. */
  message: string;
  /** 1-based line in the source, when known. */
  line?: number;
  /** 1-based column in the source, when known. */
  column?: number;
}

/** Constructor options of `MCPConfigError`. */
export interface MCPConfigErrorOptions extends MCPErrorOptions<MCPConfigErrorCode> {
  /** The file path or label of the text that was parsed. */
  source?: string;
  /** Every problem found; the first one is also exposed as `path`/`line`/`column`. */
  issues?: MCPConfigIssue[];
  /** The server the problem belongs to, when there is one. */
  serverName?: string;
}

function describeIssues(summary: string, source: string | undefined, issues: MCPConfigIssue[]) {
  const where = source && !summary.includes(source) ? ` in ${source}` : "";
  if (issues.length === 0) return `${summary}${where}`;
  const lines = issues.map((issue) => {
    const pos = issue.line === undefined ? "" : `line ${issue.line}, column ${issue.column ?? 1}: `;
    const path = issue.path ? `${issue.path}: ` : "";
    return `  - ${pos}${path}${issue.message}`;
  });
  return `${summary}${where}:\n${lines.join("\n")}`;
}

/** A config file or config value is missing, unreadable, malformed or breaks a rule. */
export class MCPConfigError extends MCPError<MCPConfigErrorCode> {
  static override readonly errorName: string = "MCPConfigError";

  /** The file path or label of the parsed text. */
  readonly source: string | undefined;
  /** Field path of the first issue, e.g. `servers[2].auth.type`. */
  readonly path: string | undefined;
  /** 1-based line of the first issue. */
  readonly line: number | undefined;
  /** 1-based column of the first issue. */
  readonly column: number | undefined;
  /** Every issue found, in file order. */
  readonly issues: readonly MCPConfigIssue[];
  /** The server concerned, when the problem belongs to one. */
  readonly serverName: string | undefined;

  constructor(summary: string, options: MCPConfigErrorOptions) {
    const issues = options.issues ?? [];
    super(describeIssues(summary, options.source, issues), options);
    const first = issues[0];
    this.source = options.source;
    this.issues = issues;
    this.path = first?.path;
    this.line = first?.line;
    this.column = first?.column;
    this.serverName = options.serverName;
  }
}
