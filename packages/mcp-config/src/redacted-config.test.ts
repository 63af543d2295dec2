import { describe, expect, it } from "vitest";
import { parseMCPServerConfigs } from "./parse-mcp-config.js";
import { redactedConfig } from "./redacted-config.js";
import type { MCPServerConfig } from "./schema.js";

const CANARY = "canary-redaction-9c1d";

describe("redactedConfig", () => {
  const [fs, remote] = parseMCPServerConfigs(`servers:
  - name: fs
    transport: stdio
    command: \${NODE}
    args: ["--root=\${ROOT:-/tmp}", "--key=\${FS_KEY}"]
    env: { WORKSPACE_ROOT: AGENTFORGE_WORKSPACE, TOKEN: FS_TOKEN }
  - name: remote
    transport: http
    url: https://example.invalid/mcp
    headers: { X-Team: TEAM }
    auth: { type: oauth, client_id_env_var: CID, client_secret_env_var: CSECRET }
`) as [MCPServerConfig, MCPServerConfig];
  const env = { AGENTFORGE_WORKSPACE: CANARY, FS_TOKEN: CANARY, CSECRET: CANARY, FS_KEY: CANARY };

  it("lists variable names with set/unset, never values", () => {
    const shown = redactedConfig(fs, env);
    expect(JSON.stringify(shown)).not.toContain(CANARY);
    expect(shown.variables).toEqual([
      { name: "ROOT", field: "args[0]", set: false },
      { name: "FS_KEY", field: "args[1]", set: true },
      { name: "AGENTFORGE_WORKSPACE", field: "env.WORKSPACE_ROOT", set: true },
      { name: "FS_TOKEN", field: "env.TOKEN", set: true },
    ]);
    const remoteShown = redactedConfig(remote, env);
    expect(remoteShown.variables).toEqual([
      { name: "TEAM", field: "headers.X-Team", set: false },
      { name: "CID", field: "auth.clientIdEnvVar", set: false },
      { name: "CSECRET", field: "auth.clientSecretEnvVar", set: true },
    ]);
    expect(JSON.stringify(remoteShown)).not.toContain(CANARY);
  });

  it("redacts credentials in a URL built in code", () => {
    const built: MCPServerConfig = {
      ...remote,
      url: `https://user:${CANARY}@h.example/mcp?key=${CANARY}&v=1`,
    } as MCPServerConfig;
    const shown = redactedConfig(built, {});
    expect(shown.transport === "http" && shown.url).toBe(
      "https://REDACTED:REDACTED@h.example/mcp?key=REDACTED&v=REDACTED",
    );
    expect(built.transport === "http" && built.url).toContain(CANARY); // the input is untouched
  });
});
