import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MCPConfigError } from "../errors.js";
import { parseMCPConfig } from "../parse-mcp-config.js";
import { resolvedAuthHeaders, resolvedEnv, resolvePlaceholders } from "../resolve.js";
import { stringifyMCPConfig } from "../stringify-mcp-config.js";

const fixture = (name: string) => readFileSync(new URL(`../__fixtures__/${name}`, import.meta.url), "utf8");

describe("importing a desktop-client mcpServers file", () => {
  const text = fixture("claude-desktop.json");
  const config = parseMCPConfig(text, { source: "claude_desktop_config.json" });

  it("never carries a literal value over", () => {
    expect(text).toContain("canary");
    expect(JSON.stringify(config)).not.toContain("canary");
    expect(stringifyMCPConfig(config)).not.toContain("canary");
  });

  it("converts every server, keeping names safe and the original as display name", () => {
    expect(config.format).toBe("mcpServers");
    expect(config.servers.map((s) => [s.name, s.transport, s.enabled])).toEqual([
      ["github", "stdio", true],
      ["brave-search", "stdio", true],
      ["remote", "http", true],
      ["legacy-sse", "http", true],
      ["off", "stdio", false],
    ]);
    expect(config.servers[0]?.displayName).toBe("GitHub");
    expect(config.warnings.map((w) => w.path)).toEqual(["mcpServers.GitHub"]);
  });

  it("maps each literal to a variable NAME and reports which to export", () => {
    const [github, brave, remote] = config.servers;
    expect(github).toMatchObject({
      args: ["-y", "@modelcontextprotocol/server-github", "--api-key=${GITHUB_API_KEY}"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "GITHUB_PERSONAL_ACCESS_TOKEN", API_KEY: "GITHUB_API_KEY" },
    });
    expect(brave).toMatchObject({
      args: ["-y", "@modelcontextprotocol/server-brave-search", "--token", "${BRAVE_SEARCH_TOKEN}"],
      env: { API_KEY: "BRAVE_SEARCH_API_KEY", HOME_DIR: "HOME" },
    });
    expect(remote).toMatchObject({
      auth: { type: "bearer", credentialEnvVar: "REMOTE_TOKEN" },
      headers: { "X-Team": "REMOTE_X_TEAM" },
    });
    const exports = config.variables
      .filter((v) => v.replacedLiteral)
      .map((v) => `${v.serverName}:${v.field}=${v.name}`);
    expect(exports).toEqual([
      "github:args[2]=GITHUB_API_KEY",
      "github:env.GITHUB_PERSONAL_ACCESS_TOKEN=GITHUB_PERSONAL_ACCESS_TOKEN",
      "github:env.API_KEY=GITHUB_API_KEY",
      "brave-search:args[3]=BRAVE_SEARCH_TOKEN",
      "brave-search:env.API_KEY=BRAVE_SEARCH_API_KEY",
      "remote:auth.credential_env_var=REMOTE_TOKEN",
      "remote:headers.X-Team=REMOTE_X_TEAM",
    ]);
    expect(config.variables.find((v) => v.name === "HOME")?.replacedLiteral).toBe(false);
  });

  it("gives the values back only from the environment at connect time", () => {
    const env = {
      GITHUB_PERSONAL_ACCESS_TOKEN: "t1",
      GITHUB_API_KEY: "k1",
      REMOTE_TOKEN: "r1",
      REMOTE_X_TEAM: "blue",
    };
    const [github, , remote] = config.servers;
    if (!github || !remote) throw new Error("fixture changed");
    expect(resolvedEnv(github, env)).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: "t1", API_KEY: "k1" });
    const resolved = resolvePlaceholders(github, { env });
    expect(resolved.transport === "stdio" && resolved.args).toContain("--api-key=k1");
    expect(resolvedAuthHeaders(remote, env)).toEqual({ Authorization: "Bearer r1", "X-Team": "blue" });
  });

  it("round-trips through stringifyMCPConfig into our format", () => {
    const again = parseMCPConfig(stringifyMCPConfig(config));
    expect(again.format).toBe("agentforge");
    expect(again.servers).toEqual(config.servers);
  });
});

describe("importing a VS Code mcp.json", () => {
  const config = parseMCPConfig(fixture("vscode-mcp.json"), {
    source: ".vscode/mcp.json",
    configDir: "/repo/.vscode",
  });

  it("turns inputs and ${env:X} into variables and workspaceFolder into CONFIG_DIR", () => {
    expect(config.format).toBe("vscode");
    const [github, files] = config.servers;
    expect(github).toMatchObject({
      transport: "http",
      auth: { type: "bearer", credentialEnvVar: "GH_TOKEN" },
    });
    expect(files).toMatchObject({
      args: ["${CONFIG_DIR}/../tools/server.js"],
      env: { ROOT: "WORKSPACE_ROOT" },
    });
    if (files?.transport !== "stdio") throw new Error("fixture changed");
    expect(resolvePlaceholders(files).args).toEqual(["/repo/.vscode/../tools/server.js"]);
    expect(config.variables.every((v) => !v.replacedLiteral)).toBe(true);
  });
});

describe("import errors point into the source file", () => {
  it("names the entry and field", () => {
    const text = '{\n  "mcpServers": {\n    "a": { "command": 5 },\n    "b": { "url": "ftp://x" }\n  }\n}\n';
    let error: unknown;
    try {
      parseMCPConfig(text, { source: "x.json" });
    } catch (e) {
      error = e;
    }
    if (!MCPConfigError.isInstance(error)) throw new Error("expected MCPConfigError");
    expect(error.issues.map((i) => [i.path, i.line])).toEqual([
      ["mcpServers.a.command", 3],
      ["mcpServers.b.url", 4],
    ]);
  });

  it("refuses two names that normalise to the same server", () => {
    expect(() =>
      parseMCPConfig('{"mcpServers": {"Git Hub": {"command": "a"}, "git-hub": {"command": "b"}}}'),
    ).toThrow(/both become server name "git-hub"/);
  });
});

describe("importing protocolVersion", () => {
  it("carries protocolVersion over as protocol_version, absent meaning auto", () => {
    const config = parseMCPConfig(
      '{"mcpServers": {"a": {"url": "https://a.example/mcp", "protocolVersion": "2026-07-28"}, "b": {"command": "b"}}}',
    );
    expect(config.servers.map((s) => s.protocolVersion)).toEqual(["2026-07-28", undefined]);
    expect(stringifyMCPConfig(config)).toContain("protocol_version: 2026-07-28");
  });

  it("refuses a revision it does not know, naming the field", () => {
    expect(() =>
      parseMCPConfig('{"mcpServers": {"a": {"command": "a", "protocolVersion": "2024-11-05"}}}'),
    ).toThrow(/protocol_version: expected one of "auto", "2025-11-25", "2026-07-28"/);
  });
});

describe("importing an oauth block", () => {
  const text = JSON.stringify({
    mcpServers: {
      github: {
        type: "http",
        url: "https://api.githubcopilot.com/mcp/",
        oauth: {
          clientId: "Iv1.canary0123456789",
          clientSecret: "${env:GH_SECRET}",
          callbackPort: 8765,
          scopes: ["repo", "read:user"],
          extra: 1,
        },
      },
      both: {
        url: "https://both.example/mcp",
        headers: { Authorization: "Bearer ${env:BOTH_TOKEN}" },
        oauth: { clientId: "x" },
      },
    },
  });
  const config = parseMCPConfig(text, { source: ".mcp.json" });

  it("maps it to grant authorization_code, moving the literal client id to a variable", () => {
    expect(config.servers[0]).toMatchObject({
      auth: {
        type: "oauth",
        grant: "authorization_code",
        clientIdEnvVar: "GITHUB_CLIENT_ID",
        clientSecretEnvVar: "GH_SECRET",
        redirectPort: 8765,
        scope: "repo read:user",
      },
    });
    expect(JSON.stringify(config)).not.toContain("canary");
    expect(config.variables).toContainEqual({
      name: "GITHUB_CLIENT_ID",
      serverName: "github",
      field: "auth.client_id_env_var",
      replacedLiteral: true,
    });
  });

  it("warns about unknown keys and keeps an Authorization header over the oauth block", () => {
    expect(config.servers[1]).toMatchObject({ auth: { type: "bearer", credentialEnvVar: "BOTH_TOKEN" } });
    expect(config.warnings.map((w) => w.path)).toEqual([
      "mcpServers.github.oauth.extra",
      "mcpServers.both.oauth",
    ]);
  });
});
