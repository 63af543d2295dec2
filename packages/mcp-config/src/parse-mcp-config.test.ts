import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MCPConfigError, MCPError } from "./errors.js";
import { parseMCPConfig, parseMCPServerConfigs } from "./parse-mcp-config.js";
import { stringifyMCPConfig } from "./stringify-mcp-config.js";

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");

function configError(name: string): MCPConfigError {
  try {
    parseMCPConfig(fixture(name), { source: `/cfg/${name}` });
  } catch (error) {
    expect(MCPConfigError.isInstance(error)).toBe(true);
    return error as MCPConfigError;
  }
  throw new Error(`${name} parsed without error`);
}

describe("parseMCPConfig: valid files", () => {
  it("parses the full roster into camelCase configs with defaults", () => {
    const config = parseMCPConfig(fixture("valid-roster.yaml"), {
      source: "roster.yaml",
      configDir: "/srv/app",
    });
    expect(config.format).toBe("agentforge");
    expect(config.servers.map((s) => s.name)).toEqual([
      "filesystem",
      "local-tools",
      "github",
      "exa",
      "corp_api",
      "oauth-m2m",
      "oauth-token",
      "secure",
    ]);
    const [fs, local, github, exa, corp, m2m, token, secure] = config.servers;
    expect(fs).toEqual({
      name: "filesystem",
      displayName: "Workspace files",
      description: "Read-only access to the workspace",
      enabled: true,
      transport: "stdio",
      command: "${NODE}",
      args: ["${CONFIG_DIR}/../node_modules/.bin/agentforge-filesystem"],
      env: { WORKSPACE_ROOT: "AGENTFORGE_WORKSPACE" },
      connectionTimeout: 10,
      toolTimeout: 30,
      resetTimeoutOnProgress: false,
      maxConcurrentCalls: 1,
      configDir: "/srv/app",
    });
    expect(local).toMatchObject({ cwd: "${CONFIG_DIR}", env: {}, enabled: true });
    expect(github).toMatchObject({
      transport: "http",
      auth: { type: "bearer", credentialEnvVar: "GITHUB_TOKEN" },
      headers: {},
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 300,
    });
    expect(exa).toMatchObject({
      enabled: false,
      headers: { "X-Team": "EXA_TEAM" },
      auth: { type: "api_key" },
    });
    expect(corp).toMatchObject({ auth: { type: "custom_header", headerName: "X-Corp-Key" } });
    expect(m2m).toMatchObject({
      auth: {
        type: "oauth",
        grant: "client_credentials",
        clientIdEnvVar: "M2M_CLIENT_ID",
        clientSecretEnvVar: "M2M_CLIENT_SECRET",
        scope: "tools:read",
        issuer: "https://auth.example",
      },
    });
    expect(token).toMatchObject({
      auth: { type: "oauth", grant: "access_token", credentialEnvVar: "PRE_ISSUED_TOKEN" },
    });
    expect(secure).toMatchObject({
      auth: { type: "mtls", certFileEnvVar: "CLIENT_CERT_PATH", caFileEnvVar: "CA_BUNDLE_PATH" },
    });
    expect(config.permissions).toEqual({
      documentation: { allow: ["filesystem.*", "local-tools.echo"], deny: [] },
      reviewer: { allow: ["github.get_*", "github.list_issues"], deny: ["github.get_secret_scanning_alert"] },
    });
  });

  it("defaults enabled to false and http auth to none", () => {
    const [server] = parseMCPServerConfigs(
      "servers:\n  - name: r\n    transport: http\n    url: http://127.0.0.1:1/mcp\n",
    );
    expect(server).toMatchObject({
      enabled: false,
      auth: { type: "none" },
      connectionTimeout: 10,
      toolTimeout: 30,
    });
  });

  it("accepts our format written as JSON, and an empty list", () => {
    expect(parseMCPServerConfigs(fixture("native.json"))).toHaveLength(1);
    expect(parseMCPConfig("servers: []").servers).toEqual([]);
  });

  it("leaves configDir undefined without one", () => {
    const [server] = parseMCPServerConfigs("servers:\n  - {name: a, transport: stdio, command: node}\n");
    expect(server && "configDir" in server).toBe(false);
  });
});

describe("parseMCPConfig: every rule names file, line, column and field path", () => {
  const cases: [fixture: string, path: string, line: number, message: RegExp][] = [
    ["missing-command.yaml", "servers[0].command", 2, /stdio server needs `command`/],
    ["missing-url.yaml", "servers[0].url", 2, /http server needs `url`/],
    ["missing-transport.yaml", "servers[0].transport", 2, /missing; expected transport "stdio".*"http"/],
    ["unknown-transport.yaml", "servers[0].transport", 3, /expected transport "stdio"/],
    ["auth-on-stdio.yaml", "servers[0].auth", 5, /"auth" is only valid for http servers/],
    ["command-on-http.yaml", "servers[0].command", 5, /"command" is only valid for stdio servers/],
    ["unknown-key.yaml", "servers[0].comand", 4, /unknown key "comand" \(did you mean "command"\?\)/],
    [
      "duplicate-names.yaml",
      "servers[2].name",
      8,
      /duplicate server name "files" \(first used by servers\[0\] at line 2\)/,
    ],
    ["name-with-dot.yaml", "servers[0].name", 2, /lowercase letters, digits.*no dots, spaces/],
    ["name-with-space.yaml", "servers[0].name", 2, /no dots, spaces/],
    [
      "oauth-incomplete.yaml",
      "servers[0].auth.client_secret_env_var",
      5,
      /required for grant client_credentials/,
    ],
    ["bad-placeholder.yaml", "servers[0].command", 4, /unclosed "\$\{"/],
    ["not-a-mapping.yaml", "", 1, /expected a mapping with a `servers:` list/],
  ];
  it.each(cases)("%s → %s", (name, path, line, message) => {
    const error = configError(name);
    expect(error.code).toBe("CONFIG_INVALID");
    const issue = error.issues.find((i) => i.path === path);
    expect(issue, `issues: ${JSON.stringify(error.issues)}`).toBeDefined();
    expect(issue?.line).toBe(line);
    expect(issue?.column).toBeGreaterThan(0);
    expect(issue?.message).toMatch(message);
    expect(error.message).toContain(`/cfg/${name}`);
    expect(error.message).toContain(`line ${line}, column ${issue?.column}`);
    if (path) expect(error.message).toContain(`${path}: `);
    expect(error.message).not.toMatch(/ZodError|invalid_type|"code":|at .*\.js:\d+/);
  });

  it("reports every wrong type at once, without zod jargon", () => {
    const error = configError("wrong-types.yaml");
    const byPath = Object.fromEntries(error.issues.map((i) => [i.path, i.message]));
    expect(byPath).toEqual({
      "servers[0].enabled": "expected true or false, got a string",
      "servers[0].command": "expected a string, got a list",
      "servers[0].args": "expected a list, got a string",
      "servers[0].connection_timeout": "expected a number of seconds greater than 0",
      "servers[0].max_concurrent_calls": "expected an integer, got a number",
    });
    expect(error.line).toBe(3);
    expect(error.path).toBe("servers[0].enabled");
  });

  it("does not echo a literal value put where a variable NAME belongs", () => {
    const error = configError("literal-secret.yaml");
    expect(error.path).toBe("servers[0].auth.credential_env_var");
    expect(error.message).toMatch(/NAME of an environment variable/);
    expect(error.message).not.toContain("canary");
    expect(JSON.stringify(error.toJSON())).not.toContain("canary");
  });

  it("validates permission patterns in the permissions section", () => {
    const error = configError("bad-permissions.yaml");
    expect(error.issues.map((i) => [i.path, i.line])).toEqual([
      ["permissions.everything[0]", 3],
      ["permissions.star-star[0]", 4],
      ["permissions.no-dot[0]", 5],
      ["permissions.star-server[0]", 6],
      ["permissions.capital[0]", 7],
      ["permissions.ok.extra", 8],
    ]);
    expect(error.issues[0]?.message).toMatch(/would grant every tool of every server/);
  });
});

describe("parseMCPConfig: malformed input", () => {
  it.each([
    ["malformed.yaml", 3],
    ["duplicate-keys.yaml", 5],
  ])("%s → CONFIG_SYNTAX at line %i", (name, line) => {
    const error = configError(name);
    expect(error.code).toBe("CONFIG_SYNTAX");
    expect(error.line).toBe(line);
    expect(error.message).toContain(`/cfg/${name}`);
  });

  it("an empty file is a clear error", () => {
    const error = configError("empty.yaml");
    expect(error.code).toBe("CONFIG_SYNTAX");
    expect(error.message).toMatch(/empty; expected a top-level `servers:` list/);
  });

  it("a comment-only file is a clear error", () => {
    expect(() => parseMCPConfig("# nothing here\n")).toThrow(/no content/);
  });

  it("refuses a 10 MB text before parsing it", () => {
    // Broken YAML: had it been parsed, the error would be CONFIG_SYNTAX, not CONFIG_TOO_LARGE.
    const big = `servers: [\n  {unclosed: \n${"# padding padding padding padding\n".repeat(320_000)}`;
    expect(big.length).toBeGreaterThan(10_000_000);
    let error: unknown;
    try {
      parseMCPConfig(big, { source: "big.yaml" });
    } catch (e) {
      error = e;
    }
    expect(MCPConfigError.isInstance(error) && error.code).toBe("CONFIG_TOO_LARGE");
  });

  it("a grant naming a server the roster lacks is an error with its line and a did-you-mean", () => {
    const text = [
      "servers:",
      "  - name: filesystem",
      "    transport: stdio",
      "    command: node",
      "permissions:",
      "  docs:",
      "    allow: [filesytem.read_text_file]",
      "    resources: [filesystem:file:///srv/*, nowhere:file:///x]",
      '  helper: ["filesystem.*"]',
    ].join("\n");
    let error: unknown;
    try {
      parseMCPConfig(text, { source: "roster.yaml" });
    } catch (e) {
      error = e;
    }
    expect(MCPConfigError.isInstance(error)).toBe(true);
    const config = error as MCPConfigError;
    expect(config.code).toBe("CONFIG_INVALID");
    expect(config.issues).toEqual([
      {
        path: "permissions.docs.allow[0]",
        line: 7,
        column: 13,
        message:
          'names server "filesytem", which the roster does not define (did you mean "filesystem"?); defined servers: filesystem',
      },
      {
        path: "permissions.docs.resources[1]",
        line: 8,
        column: 43,
        message: 'names server "nowhere", which the roster does not define; defined servers: filesystem',
      },
    ]);
    expect(config.message).toContain("line 7, column 13: permissions.docs.allow[0]: names server");
  });

  it("a YAML alias bomb is refused", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 12; i++)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      );
    lines.push("servers: []");
    expect(() => parseMCPConfig(lines.join("\n"))).toThrow(MCPError);
  });
});

describe("parseMCPConfig: resource and prompt grants", () => {
  it("reads resources and prompts (lists or allow/deny) into allow/deny lists; none means none", () => {
    const { permissions } = parseMCPConfig(fixture("resource-and-prompt-grants.yaml"));
    expect(permissions).toEqual({
      documentation: {
        allow: ["docs.*"],
        deny: [],
        resources: { allow: ["docs:file:///srv/docs/*", "memory:memory://*"], deny: [] },
        prompts: { allow: ["github.review_*"], deny: [] },
      },
      reviewer: {
        allow: ["github.get_*"],
        deny: [],
        resources: { allow: ["docs:*"], deny: ["docs:file:///srv/docs/private/*"] },
        prompts: { allow: ["github.*"], deny: ["github.delete_*"] },
      },
      "tools-only": { allow: ["docs.*"], deny: [] },
    });
    expect("resources" in (permissions["tools-only"] ?? {})).toBe(false);
  });

  it("names agent, field, position and the bad pattern for every bad resource or prompt grant", () => {
    const error = configError("bad-resource-grants.yaml");
    expect(error.issues.map((i) => [i.path, i.line])).toEqual([
      ["permissions.everything.resources[0]", 4],
      ["permissions.any-server.resources[0]", 6],
      ["permissions.no-colon.resources[0]", 8],
      ["permissions.no-scheme.resources[0]", 10],
      ["permissions.dot-dot.resources.allow[0]", 12],
      ["permissions.bad-prompt.prompts[0]", 14],
      ["permissions.bad-prompt.prompts[1]", 14],
      ["permissions.typo.resources.denny", 16],
      ["permissions.not-a-list.prompts", 18],
    ]);
    const messages = error.issues.map((i) => i.message);
    expect(messages[0]).toBe(
      '"*:*" would grant resources of every server; name the server: "<server>:<uri-pattern>" (e.g. "docs:file:///srv/docs/*")',
    );
    expect(messages[3]).toMatch(/"docs:\/srv\/docs\/\*" must start with a URI scheme/);
    expect(messages[4]).toMatch(/"docs:file:\/\/\/srv\/docs\/\.\.\/\*" contains a "\.\." segment/);
    expect(messages[5]).toMatch(/"\*\.\*" would grant every prompt of every server/);
    expect(messages[7]).toBe('unknown key "denny" (did you mean "deny"?)');
    expect(messages[8]).toMatch(
      /expected a list of patterns, or a mapping with allow\/deny\/confirm lists; got a string/,
    );
    expect(error.message).toContain("/cfg/bad-resource-grants.yaml");
  });

  it("suggests resources and prompts for a misspelt grant key", () => {
    expect(() =>
      parseMCPConfig("servers: []\npermissions:\n  a: { allow: [], resource: [docs:*] }\n"),
    ).toThrow(/unknown key "resource" \(did you mean "resources"\?\)/);
  });
});

describe("parseMCPConfig: tool_search", () => {
  it("reads an agent's tool_search settings into camelCase, only the fields given", () => {
    const { permissions } = parseMCPConfig(fixture("tool-search.yaml"));
    expect(permissions.researcher).toEqual({
      allow: ["github.*", "slack.*", "filesystem.*"],
      deny: [],
      toolSearch: {
        mode: "auto",
        threshold: { tools: 20, chars: 30000 },
        alwaysLoad: ["filesystem.read_text_file", "slack.slack_post_*"],
        maxSearches: 5,
      },
    });
    expect(permissions.planner).toEqual({ allow: ["github.*"], deny: [], toolSearch: { mode: "on" } });
    expect("toolSearch" in (permissions.small ?? {})).toBe(false);
  });

  it("names agent, field, line and column for every bad setting", () => {
    const error = configError("bad-tool-search.yaml");
    expect(error.issues.map((i) => [i.path, i.line])).toEqual([
      ["permissions.a.tool_search.mode", 5],
      ["permissions.b.tool_search.threshold.tools", 8],
      ["permissions.b.tool_search.threshold.size", 8],
      ["permissions.c.tool_search.always_load[0]", 11],
      ["permissions.c.tool_search.max_searches", 11],
      ["permissions.d.tool_search.max_search", 14],
    ]);
    const byPath = new Map(error.issues.map((i) => [i.path, i.message]));
    expect(byPath.get("permissions.a.tool_search.mode")).toBe('expected one of "auto", "on", "off"');
    expect(byPath.get("permissions.b.tool_search.threshold.tools")).toMatch(/at least 0/);
    expect(byPath.get("permissions.b.tool_search.threshold.size")).toMatch(/unknown key "size"/);
    expect(byPath.get("permissions.c.tool_search.always_load[0]")).toMatch(/every tool of every server/);
    expect(byPath.get("permissions.c.tool_search.max_searches")).toMatch(/set mode: off/);
    expect(byPath.get("permissions.d.tool_search.max_search")).toBe(
      'unknown key "max_search" (did you mean "max_searches"?)',
    );
    expect(error.issues.every((i) => typeof i.column === "number")).toBe(true);
  });

  it("round-trips through stringifyMCPConfig in the file's snake_case", () => {
    const config = parseMCPConfig(fixture("tool-search.yaml"));
    const text = stringifyMCPConfig(config);
    expect(text).toContain("always_load:");
    expect(text).not.toContain("alwaysLoad");
    expect(parseMCPConfig(text).permissions).toEqual(config.permissions);
  });

  it("suggests tool_search for a misspelt key of a grant", () => {
    expect(() => parseMCPConfig("servers: []\npermissions:\n  a: { allow: [], toolsearch: {} }\n")).toThrow(
      /unknown key "toolsearch" \(did you mean "tool_search"\?\)/,
    );
  });
});

describe("parseMCPConfig: numbers that are not numbers", () => {
  it("names NaN and infinity instead of calling them numbers", () => {
    const text = (value: string) =>
      `servers:\n  - {name: a, transport: stdio, command: node, tool_timeout: ${value}}\n`;
    expect(() => parseMCPConfig(text(".nan"))).toThrow(/tool_timeout: expected a number, got NaN/);
    expect(() => parseMCPConfig(text(".inf"))).toThrow(
      /tool_timeout: expected a number, got an infinite number/,
    );
  });
});
