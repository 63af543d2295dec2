/**
 * The file format (snake_case, as written in mcp_servers.yaml) as zod schemas, and the camelCase
 * TypeScript types derived from them. The schemas validate; `parseMCPConfig` adds positions and the
 * cross-field rules that need the whole file (duplicate names).
 */
import { z } from "zod";
import {
  AGENT_NAME_PATTERN,
  ENV_VAR_NAME_PATTERN,
  HEADER_NAME_PATTERN,
  MAX_SERVER_NAME_LENGTH,
  SERVER_NAME_PATTERN,
} from "./internal/names.js";
import { placeholderProblem } from "./internal/placeholders.js";
import {
  permissionPatternProblem,
  promptPatternProblem,
  resourcePatternProblem,
} from "./permission-pattern.js";

export { AGENT_NAME_PATTERN, ENV_VAR_NAME_PATTERN, SERVER_NAME_PATTERN };

const serverName = z
  .string()
  .max(MAX_SERVER_NAME_LENGTH, { error: "a server name is at most 64 characters" })
  .regex(SERVER_NAME_PATTERN, {
    error:
      "expected a server name of lowercase letters, digits, '-' and '_', starting with a letter or digit (no dots, spaces or capitals)",
  });

const envVarName = z.string().regex(ENV_VAR_NAME_PATTERN, {
  error:
    "expected the NAME of an environment variable (letters, digits, '_'); the value itself belongs in the environment, never in this file",
});

const placeholderString = z
  .string()
  .min(1, { error: "expected a non-empty string" })
  .superRefine((value, ctx) => {
    const problem = placeholderProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** The values of a server's `protocol_version` (absent means `auto`). */
export const PROTOCOL_VERSION_SETTINGS = ["auto", "2025-11-25", "2026-07-28"] as const;
/** A server's `protocol_version` setting. */
export type MCPProtocolVersionSetting = (typeof PROTOCOL_VERSION_SETTINGS)[number];

const seconds = z.number().positive({ error: "expected a number of seconds greater than 0" });

const commonServerFields = {
  name: serverName,
  display_name: z.string().min(1).optional(),
  description: z.string().optional(),
  enabled: z.boolean().default(false),
  connection_timeout: seconds.default(10),
  tool_timeout: seconds.default(30),
  reset_timeout_on_progress: z.boolean().default(false),
  max_total_timeout: seconds.optional(),
  max_concurrent_calls: z.int().min(1, { error: "expected an integer of at least 1" }).optional(),
  max_message_bytes: z.int().min(1024, { error: "expected a number of bytes of at least 1024" }).optional(),
  /**
   * Which MCP revision to speak: `auto` (the default when absent) negotiates (2026-07-28 first, falling
   * back to 2025-11-25); a revision pins it.
   */
  protocol_version: z
    .enum(PROTOCOL_VERSION_SETTINGS, { error: 'expected "auto", "2025-11-25" or "2026-07-28"' })
    .optional(),
};

const noAuth = z.strictObject({ type: z.literal("none") });
const bearerAuth = z.strictObject({ type: z.literal("bearer"), credential_env_var: envVarName });
const apiKeyAuth = z.strictObject({
  type: z.literal("api_key"),
  credential_env_var: envVarName,
  header_name: z.string().regex(HEADER_NAME_PATTERN).optional(),
});
const customHeaderAuth = z.strictObject({
  type: z.literal("custom_header"),
  credential_env_var: envVarName,
  header_name: z.string().regex(HEADER_NAME_PATTERN).optional(),
});
/** JWS algorithms accepted for `private_key_jwt` client assertions (RFC 7518). */
export const OAUTH_SIGNING_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;

const oauthAuth = z
  .strictObject({
    type: z.literal("oauth"),
    /**
     * `authorization_code` (a user logs in through a browser, PKCE), `client_credentials` (machine to
     * machine, with a secret or a private-key JWT) or `access_token` (a pre-issued token).
     */
    grant: z.enum(["authorization_code", "client_credentials", "access_token"]).default("client_credentials"),
    /** Variable holding the client id. Optional for authorization_code (dynamic registration). */
    client_id_env_var: envVarName.optional(),
    /** Variable holding the client secret (client_secret_basic / client_secret_post). */
    client_secret_env_var: envVarName.optional(),
    /** Variable holding the PATH of a PEM private key, for `private_key_jwt` (client_credentials). */
    private_key_file_env_var: envVarName.optional(),
    /** JWS algorithm of the client assertion; by default derived from the key. */
    signing_algorithm: z.enum(OAUTH_SIGNING_ALGORITHMS).optional(),
    /** An https URL of this client's metadata document, used as client id when the server supports it. */
    client_metadata_url: z
      .url({ protocol: /^https$/, error: "expected an https:// URL of the client metadata document" })
      .optional(),
    /** The pre-issued access token's variable, for `grant: access_token`. */
    credential_env_var: envVarName.optional(),
    /** Space-separated scopes to ask for (by default: what the server advertises). */
    scope: z.string().optional(),
    /** The authorization server the credentials were issued by (a URL, not a secret). */
    issuer: z.url({ protocol: /^https?$/ }).optional(),
    /** Loopback port of the login redirect (`http://127.0.0.1:<port>/callback`); random by default. */
    redirect_port: z
      .int({ error: "expected a port number" })
      .min(1, { error: "expected a port from 1 to 65535" })
      .max(65535, { error: "expected a port from 1 to 65535" })
      .optional(),
  })
  .superRefine((auth, ctx) => {
    const issue = (key: string, message: string) => ctx.addIssue({ code: "custom", path: [key], message });
    const onlyFor = (key: keyof typeof auth, grants: string) => {
      if (auth[key] !== undefined) issue(key, `only used with grant ${grants}; remove it or change grant`);
    };
    if (auth.grant === "client_credentials") {
      if (!auth.client_id_env_var) {
        issue(
          "client_id_env_var",
          "required for grant client_credentials (the NAME of the variable holding it)",
        );
      }
      if (auth.client_secret_env_var && auth.private_key_file_env_var) {
        issue(
          "private_key_file_env_var",
          "give either client_secret_env_var or private_key_file_env_var, not both",
        );
      } else if (!auth.client_secret_env_var && !auth.private_key_file_env_var) {
        issue(
          "client_secret_env_var",
          "required for grant client_credentials (the NAME of the variable holding it), unless private_key_file_env_var names a private key for private_key_jwt",
        );
      }
      if (auth.signing_algorithm && !auth.private_key_file_env_var) {
        issue("signing_algorithm", "only used with private_key_file_env_var (private_key_jwt)");
      }
      onlyFor("credential_env_var", "access_token");
      onlyFor("client_metadata_url", "authorization_code");
      onlyFor("redirect_port", "authorization_code");
    } else if (auth.grant === "authorization_code") {
      if (auth.client_secret_env_var && !auth.client_id_env_var) {
        issue(
          "client_id_env_var",
          "required with client_secret_env_var (a pre-registered client); leave both out to register dynamically",
        );
      }
      onlyFor("credential_env_var", "access_token");
      onlyFor("private_key_file_env_var", "client_credentials");
      onlyFor("signing_algorithm", "client_credentials");
    } else {
      if (!auth.credential_env_var) {
        issue(
          "credential_env_var",
          "required for grant access_token (the NAME of the variable holding the token)",
        );
      }
      onlyFor("private_key_file_env_var", "client_credentials");
      onlyFor("signing_algorithm", "client_credentials");
      onlyFor("client_metadata_url", "authorization_code");
      onlyFor("redirect_port", "authorization_code");
    }
  });
const mtlsAuth = z.strictObject({
  type: z.literal("mtls"),
  /** Variable holding the PATH of the PEM client certificate. */
  cert_file_env_var: envVarName,
  /** Variable holding the PATH of the PEM private key. */
  key_file_env_var: envVarName,
  /** Variable holding the PATH of a PEM CA bundle to trust (optional). */
  ca_file_env_var: envVarName.optional(),
  /** Variable holding the key's passphrase (optional). */
  passphrase_env_var: envVarName.optional(),
});

/** `auth:` of an http server, as written in the file. */
export const authConfigSchema = z.discriminatedUnion("type", [
  noAuth,
  bearerAuth,
  apiKeyAuth,
  customHeaderAuth,
  oauthAuth,
  mtlsAuth,
]);

const stdioServer = z.strictObject({
  ...commonServerFields,
  transport: z.literal("stdio"),
  command: placeholderString,
  args: z.array(placeholderString).default([]),
  /** Child env var name -> NAME of the variable to read at connect time. */
  env: z.record(envVarName, envVarName).default({}),
  cwd: placeholderString.optional(),
});

const httpServer = z.strictObject({
  ...commonServerFields,
  transport: z.literal("http"),
  url: placeholderString.superRefine((value, ctx) => {
    if (value.includes("${")) return; // checked once the placeholders are resolved
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "expected an absolute http:// or https:// URL" });
      return;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: "expected an http:// or https:// URL" });
    } else if (parsed.username || parsed.password) {
      ctx.addIssue({
        code: "custom",
        message: "credentials in the URL are not allowed; use auth with credential_env_var",
      });
    }
  }),
  /** Extra request header -> NAME of the variable holding its value. */
  headers: z
    .record(z.string().regex(HEADER_NAME_PATTERN, { error: "expected an HTTP header name" }), envVarName)
    .default({}),
  auth: authConfigSchema.default({ type: "none" }),
});

/** One entry of `servers:`, as written in the file (snake_case). */
export const serverEntrySchema = z.discriminatedUnion("transport", [stdioServer, httpServer]);

function patternSchema(problemOf: (pattern: string) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    const problem = problemOf(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
}

const permissionPattern = patternSchema(permissionPatternProblem);

/**
 * A list of patterns, or `{ allow, deny, confirm }` lists (for `resources:` and `prompts:`). A `confirm`
 * pattern grants too, but each use needs a person's confirmation first; `deny` overrides both.
 */
function patternLists(pattern: z.ZodType<string, string>) {
  return z.union([
    z.array(pattern),
    z.strictObject({
      allow: z.array(pattern).default([]),
      deny: z.array(pattern).default([]),
      confirm: z.array(pattern).optional(),
    }),
  ]);
}

const count = z
  .int({ error: "expected a whole number" })
  .min(0, { error: "expected a number of at least 0" });

/** The modes of tool search: `auto` turns it on over the threshold, `on` always, `off` never. */
export const TOOL_SEARCH_MODES = ["auto", "on", "off"] as const;

/**
 * `tool_search:` of an agent: how its tools reach a model when it is granted many. Every field is
 * optional; the runtime fills in its defaults (mode `auto`, threshold 30 tools or 40,000 characters of
 * definitions, 3 searches per run).
 */
export const toolSearchConfigSchema = z.strictObject({
  /** `auto` (default): on when the granted tools exceed `threshold`; `on`: always; `off`: never. */
  mode: z.enum(TOOL_SEARCH_MODES, { error: 'expected "auto", "on" or "off"' }).optional(),
  /** `auto` turns search on when the agent's granted tools exceed either figure. */
  threshold: z
    .strictObject({
      /** Number of granted tools (default 30). */
      tools: count.optional(),
      /** Characters of their definitions: names, descriptions, input schemas (default 40000). */
      chars: count.optional(),
    })
    .optional(),
  /** Tool patterns (`server.tool`, `server.*`) given to the model from the start; never grants anything. */
  always_load: z.array(permissionPattern).optional(),
  /** Searches a run may make (default 3). */
  max_searches: z
    .int({ error: "expected a whole number" })
    .min(1, { error: "expected at least 1 (to turn search off, set mode: off)" })
    .optional(),
});

const agentPermissions = z.union([
  z.array(permissionPattern),
  z.strictObject({
    allow: z.array(permissionPattern).default([]),
    deny: z.array(permissionPattern).default([]),
    /**
     * Tool patterns the agent may call only after a person confirms the call (they grant too; `deny`
     * overrides them, and they override `allow`).
     */
    confirm: z.array(permissionPattern).optional(),
    /**
     * Also ask for confirmation before tools whose annotations say `destructiveHint: true` or say
     * nothing of `readOnlyHint` (annotations only ever add confirmation, never remove it).
     */
    confirm_destructive: z.boolean({ error: "expected true or false" }).optional(),
    /** Resource patterns `<server>:<uri-pattern>`; without them the agent reads no resource. */
    resources: patternLists(patternSchema(resourcePatternProblem)).optional(),
    /** Prompt patterns `<server>.<prompt>`; without them the agent gets no prompt. */
    prompts: patternLists(patternSchema(promptPatternProblem)).optional(),
    /** How the agent's tools reach a model when it has many (see `toolSearchConfigSchema`). */
    tool_search: toolSearchConfigSchema.optional(),
  }),
]);

/**
 * `permissions:`: agent name -> allowed tool patterns, or `{ allow, deny, confirm?, confirm_destructive?,
 * resources?, prompts?, tool_search? }` (`resources` and `prompts` each a list of patterns or
 * `{ allow, deny, confirm? }`). Precedence: deny > confirm > allow.
 */
export const permissionsSchema = z.record(
  z.string().regex(AGENT_NAME_PATTERN, {
    error: "expected an agent name of letters, digits, '-' and '_'",
  }),
  agentPermissions,
);

/** The whole file, as written (snake_case). Also the source of the shipped JSON Schema. */
export const configFileSchema = z.strictObject({
  $schema: z.string().optional(),
  servers: z.array(serverEntrySchema),
  permissions: permissionsSchema.optional(),
});

/** The file's `servers:` entry as written (snake_case). */
export type ServerEntry = z.input<typeof serverEntrySchema>;
/** The whole file as written (snake_case). */
export type ConfigFile = z.input<typeof configFileSchema>;

type OutputAuth = z.output<typeof authConfigSchema>;
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
type Camelize<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] }
    : T;
type CamelizeUnion<T> = T extends unknown ? Camelize<T> : never;

/** Authentication of an http server (camelCase). Holds env var NAMES only. */
export type MCPAuthConfig = CamelizeUnion<OutputAuth>;

type OutputServer = z.output<typeof serverEntrySchema>;
type StdioOut = Extract<OutputServer, { transport: "stdio" }>;
type HttpOut = Extract<OutputServer, { transport: "http" }>;

interface ServerExtras {
  /**
   * Folder of the file this entry was loaded from: what `${CONFIG_DIR}` expands to. Undefined for
   * configs parsed from text without `configDir`.
   */
  configDir?: string;
}

/** A stdio server: launched as a child process speaking MCP over stdin/stdout. */
export type MCPStdioServerConfig = Camelize<StdioOut> & ServerExtras;
/** An http server: Streamable HTTP (falling back to HTTP+SSE). */
export type MCPHttpServerConfig = Omit<Camelize<HttpOut>, "auth"> & {
  auth: MCPAuthConfig;
} & ServerExtras;
/**
 * One MCP server of the roster, camelCase. Timeouts are in seconds. `env`, `headers` and `auth`
 * hold NAMES of environment variables, never their values.
 */
export type MCPServerConfig = MCPStdioServerConfig | MCPHttpServerConfig;
/** The transports a server can use. */
export type MCPTransportType = MCPServerConfig["transport"];

/**
 * Allowed patterns, patterns denied even when allowed, and patterns that grant only with a person's
 * confirmation of each use. Precedence: deny > confirm > allow.
 */
export interface MCPPatternLists {
  allow: string[];
  deny: string[];
  /** Patterns that grant, but each use needs a person's confirmation first (absent: none). */
  confirm?: string[];
}

/** The modes of tool search (see `MCPToolSearchConfig`). */
export type MCPToolSearchMode = (typeof TOOL_SEARCH_MODES)[number];

/**
 * An agent's `tool_search:` settings (camelCase), as written: every field optional, the runtime's
 * defaults apply to what is left out.
 */
export interface MCPToolSearchConfig {
  /** `auto`: on when the granted tools exceed `threshold`; `on`: always; `off`: never. */
  mode?: MCPToolSearchMode;
  /** `auto` turns search on when the granted tools exceed either figure. */
  threshold?: { tools?: number; chars?: number };
  /** Tool patterns given to the model from the start (only those also granted). */
  alwaysLoad?: string[];
  /** Searches a run may make. */
  maxSearches?: number;
}

/**
 * One agent's grants: tool patterns it may call (`allow`), tool patterns denied even when allowed
 * (`deny`), and, when given, its resource and prompt patterns. No `resources` (or `prompts`) means no
 * resource (or prompt) at all: deny by default. `toolSearch` is the agent's tool-search setting (it
 * grants nothing).
 */
export interface MCPAgentPermissions extends MCPPatternLists {
  /** Resource patterns `<server>:<uri-pattern>` (`docs:file:///srv/docs/*`). */
  resources?: MCPPatternLists;
  /** Prompt patterns `<server>.<prompt>` (`github.review_*`). */
  prompts?: MCPPatternLists;
  /** How the agent's tools reach a model when it has many (`tool_search:` in the file). */
  toolSearch?: MCPToolSearchConfig;
  /**
   * `confirm_destructive:` in the file: tools whose annotations say `destructiveHint: true`, or say
   * nothing of `readOnlyHint`, need a person's confirmation too. Annotations only ever add confirmation.
   */
  confirmDestructive?: boolean;
}
/** Agent name -> its grants, from the `permissions:` section. */
export type MCPPermissionsConfig = Record<string, MCPAgentPermissions>;
