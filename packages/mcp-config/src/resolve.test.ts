import { describe, expect, it } from "vitest";
import { MCPConfigError } from "./errors.js";
import { parseMCPServerConfigs } from "./parse-mcp-config.js";
import { resolvedAuthHeaders, resolvedEnv, resolvePlaceholders } from "./resolve.js";
import type { MCPHttpServerConfig, MCPStdioServerConfig } from "./schema.js";

const CANARY = "canary-5ecret-value-7f3a";

function stdio(yaml: string, configDir?: string): MCPStdioServerConfig {
  const [server] = parseMCPServerConfigs(
    `servers:\n  - name: s\n    transport: stdio\n${yaml}`,
    configDir ? { configDir } : {},
  );
  if (server?.transport !== "stdio") throw new Error("not stdio");
  return server;
}

function http(auth: string, extra = ""): MCPHttpServerConfig {
  const [server] = parseMCPServerConfigs(
    `servers:\n  - name: h\n    transport: http\n    url: https://example.invalid/mcp\n    auth: ${auth}\n${extra}`,
  );
  if (server?.transport !== "http") throw new Error("not http");
  return server;
}

describe("resolvePlaceholders", () => {
  it("expands NODE, CONFIG_DIR, VAR and VAR:-default in command, args and cwd", () => {
    const server = stdio(
      '    command: ${NODE}\n    args: ["${CONFIG_DIR}/srv.js", "--root=${ROOT}", "--port=${PORT:-8080}", "$${LITERAL}"]\n    cwd: ${CONFIG_DIR}/work\n',
      "/etc/agent",
    );
    const resolved = resolvePlaceholders(server, { env: { ROOT: "/data", PORT: "" }, nodePath: "/opt/node" });
    expect(resolved.command).toBe("/opt/node");
    expect(resolved.args).toEqual(["/etc/agent/srv.js", "--root=/data", "--port=8080", "${LITERAL}"]);
    expect(resolved.cwd).toBe("/etc/agent/work");
    expect(server.command).toBe("${NODE}"); // the input is untouched
  });

  it("defaults NODE to the running Node.js", () => {
    expect(resolvePlaceholders(stdio("    command: ${NODE}\n"), { env: {} }).command).toBe(process.execPath);
  });

  it("an unset variable without default names server, field and variable — never a value", () => {
    const server = stdio('    command: node\n    args: ["--a=${SET_ONE}", "--b=${MISSING_ONE}"]\n');
    let error: unknown;
    try {
      resolvePlaceholders(server, { env: { SET_ONE: CANARY } });
    } catch (e) {
      error = e;
    }
    if (!MCPConfigError.isInstance(error)) throw new Error("expected MCPConfigError");
    expect(error.code).toBe("CONFIG_VARIABLE_UNSET");
    expect(error.serverName).toBe("s");
    expect(error.message).toBe(
      'Server "s": args[1] uses ${MISSING_ONE}, which is not set; set MISSING_ONE, or write ${MISSING_ONE:-default}',
    );
    expect(error.message).not.toContain(CANARY);
  });

  it("CONFIG_DIR without a file is an error, not a silent empty string", () => {
    expect(() => resolvePlaceholders(stdio("    command: ${CONFIG_DIR}/x\n"))).toThrow(
      /only known for configs loaded from a file/,
    );
  });

  it("checks an http url once expanded", () => {
    const [server] = parseMCPServerConfigs("servers:\n  - {name: h, transport: http, url: '${BASE}/mcp'}\n");
    if (!server) throw new Error("no server");
    expect(resolvePlaceholders(server, { env: { BASE: "http://127.0.0.1:9" } })).toMatchObject({
      url: "http://127.0.0.1:9/mcp",
    });
    expect(() => resolvePlaceholders(server, { env: { BASE: `file://${CANARY}` } })).toThrow(/not an http/);
    try {
      resolvePlaceholders(server, { env: { BASE: `file://${CANARY}` } });
    } catch (e) {
      expect(String(e)).not.toContain(CANARY);
    }
  });
});

describe("resolvedEnv", () => {
  it("reads the named variables and omits unset ones", () => {
    const server = stdio(
      "    command: node\n    env: { ROOT: AGENT_ROOT, TOKEN: AGENT_TOKEN, EMPTY: AGENT_EMPTY }\n",
    );
    expect(resolvedEnv(server, { AGENT_ROOT: "/data", AGENT_EMPTY: "" })).toEqual({
      ROOT: "/data",
      EMPTY: "",
    });
  });
  it("is empty for http servers", () => {
    expect(resolvedEnv(http("{ type: none }"), { X: "1" })).toEqual({});
  });
});

describe("resolvedAuthHeaders", () => {
  const env = { TOKEN: CANARY };
  it.each([
    ["{ type: bearer, credential_env_var: TOKEN }", { Authorization: `Bearer ${CANARY}` }],
    ["{ type: api_key, credential_env_var: TOKEN }", { "X-API-Key": CANARY }],
    ["{ type: api_key, credential_env_var: TOKEN, header_name: X-Key }", { "X-Key": CANARY }],
    ["{ type: custom_header, credential_env_var: TOKEN }", { Authorization: CANARY }],
    ["{ type: custom_header, credential_env_var: TOKEN, header_name: X-Corp }", { "X-Corp": CANARY }],
    ["{ type: none }", {}],
    ["{ type: oauth, grant: access_token, credential_env_var: TOKEN }", {}],
    ["{ type: mtls, cert_file_env_var: C, key_file_env_var: K }", {}],
  ])("%s", (auth, expected) => {
    expect(resolvedAuthHeaders(http(auth), env)).toEqual(expected);
  });

  it("gives no header (not a crash) when the variable is unset or empty", () => {
    expect(resolvedAuthHeaders(http("{ type: bearer, credential_env_var: TOKEN }"), {})).toEqual({});
    expect(resolvedAuthHeaders(http("{ type: bearer, credential_env_var: TOKEN }"), { TOKEN: "" })).toEqual(
      {},
    );
  });

  it("adds extra headers whose variables are set", () => {
    const server = http(
      "{ type: bearer, credential_env_var: TOKEN }",
      "    headers: { X-Team: TEAM, X-Unset: NOPE }\n",
    );
    expect(resolvedAuthHeaders(server, { TOKEN: "t", TEAM: "blue" })).toEqual({
      Authorization: "Bearer t",
      "X-Team": "blue",
    });
  });

  it("is empty for stdio servers", () => {
    expect(resolvedAuthHeaders(stdio("    command: node\n"), env)).toEqual({});
  });
});
