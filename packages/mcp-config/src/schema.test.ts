import { describe, expect, it } from "vitest";
import { MCPConfigError } from "./errors.js";
import { parseMCPConfig } from "./parse-mcp-config.js";

const roster = (auth: string) =>
  `servers:\n  - name: remote\n    transport: http\n    url: https://remote.example/mcp\n    auth: ${auth}\n`;

function issues(auth: string) {
  try {
    parseMCPConfig(roster(auth));
  } catch (error) {
    if (!MCPConfigError.isInstance(error)) throw error;
    return error.issues.map((issue) => `${issue.path}: ${issue.message}`);
  }
  throw new Error("expected the config to be rejected");
}

describe("oauth auth", () => {
  it("reads grant authorization_code with every optional field (camelCase)", () => {
    const [server] = parseMCPConfig(
      roster(
        "{ type: oauth, grant: authorization_code, client_id_env_var: GH_ID, client_secret_env_var: GH_SECRET, scope: 'repo read:user', issuer: 'https://github.com/login/oauth', redirect_port: 8765, client_metadata_url: 'https://agentforge.example/client.json' }",
      ),
    ).servers;
    expect(server).toMatchObject({
      auth: {
        type: "oauth",
        grant: "authorization_code",
        clientIdEnvVar: "GH_ID",
        clientSecretEnvVar: "GH_SECRET",
        scope: "repo read:user",
        issuer: "https://github.com/login/oauth",
        redirectPort: 8765,
        clientMetadataUrl: "https://agentforge.example/client.json",
      },
    });
  });

  it("needs nothing but the grant for authorization_code (dynamic registration)", () => {
    const [server] = parseMCPConfig(roster("{ type: oauth, grant: authorization_code }")).servers;
    expect(server).toMatchObject({ auth: { type: "oauth", grant: "authorization_code" } });
  });

  it("reads client_credentials with a private key (private_key_jwt)", () => {
    const [server] = parseMCPConfig(
      roster(
        "{ type: oauth, client_id_env_var: ID, private_key_file_env_var: KEY_PATH, signing_algorithm: ES256 }",
      ),
    ).servers;
    expect(server).toMatchObject({
      auth: {
        grant: "client_credentials",
        clientIdEnvVar: "ID",
        privateKeyFileEnvVar: "KEY_PATH",
        signingAlgorithm: "ES256",
      },
    });
  });

  it.each([
    [
      "{ type: oauth, client_id_env_var: ID }",
      /client_secret_env_var: required for grant client_credentials.*private_key_file_env_var/,
    ],
    [
      "{ type: oauth, client_id_env_var: ID, client_secret_env_var: S, private_key_file_env_var: K }",
      /private_key_file_env_var: give either client_secret_env_var or private_key_file_env_var/,
    ],
    [
      "{ type: oauth, client_id_env_var: ID, client_secret_env_var: S, signing_algorithm: RS256 }",
      /signing_algorithm: only used with private_key_file_env_var/,
    ],
    [
      "{ type: oauth, client_id_env_var: ID, private_key_file_env_var: K, signing_algorithm: HS256 }",
      /signing_algorithm/,
    ],
    [
      "{ type: oauth, grant: authorization_code, client_secret_env_var: S }",
      /client_id_env_var: required with client_secret_env_var/,
    ],
    [
      "{ type: oauth, grant: authorization_code, private_key_file_env_var: K }",
      /private_key_file_env_var: only used with grant client_credentials/,
    ],
    ["{ type: oauth, grant: authorization_code, redirect_port: 70000 }", /redirect_port: expected a port/],
    [
      "{ type: oauth, grant: authorization_code, client_metadata_url: 'http://x.example/c.json' }",
      /client_metadata_url: expected an https/,
    ],
    [
      "{ type: oauth, client_id_env_var: ID, client_secret_env_var: S, redirect_port: 8080 }",
      /redirect_port: only used with grant authorization_code/,
    ],
    [
      "{ type: oauth, grant: access_token, credential_env_var: T, client_metadata_url: 'https://x.example/c.json' }",
      /client_metadata_url: only used with grant authorization_code/,
    ],
    ["{ type: oauth, grant: password }", /grant/],
    [
      "{ type: oauth, grant: authorization_code, client_id_env_var: 'not a name' }",
      /NAME of an environment variable/,
    ],
  ])("rejects %s", (auth, message) => {
    expect(issues(auth).join("\n")).toMatch(message);
  });
});
