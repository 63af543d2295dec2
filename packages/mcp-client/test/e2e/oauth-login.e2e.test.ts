// OAuth logins against the in-repo authorization server (test-servers --auth-server) driven by the real
// manager: discovery, dynamic registration, pre-registered clients, PKCE S256, state, resource, token
// endpoint auth methods, scopes, step-up, refresh, logout, and client_credentials with private_key_jwt.
// `authorize` follows the authorization URL with fetch: the test server redirects straight back to the
// loopback redirect_uri with a code, so no browser is involved.
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MCPAuthConfig } from "@agentforge/mcp-config";
import { httpTestServer, type RunningHttpTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { MCPConnectionError, MCPMemoryTokenStore, type MCPOAuthTokenStore } from "../../src/index.js";
import {
  authTestServer,
  browser,
  cleanup,
  manager,
  oauthStats,
  rejectionOf,
  tempDir,
  textOf,
} from "./helpers.js";

afterEach(cleanup);

interface OAuthStats {
  discovery: string[];
  registrations: { client_id: string; redirect_uris: string[]; method: string }[];
  authorizations: {
    client_id: string;
    redirect_uri: string;
    scope: string | null;
    resource: string | null;
    state_sent: boolean;
    code_challenge_method: string | null;
  }[];
  tokenRequests: {
    grant_type: string;
    method?: string;
    alg?: string;
    resource: string | null;
    scope: string | null;
  }[];
  refreshes: number;
  rejected: { error: string; description: string }[];
}

const server = authTestServer;
const stats = (running: RunningHttpTestServer) => oauthStats<OAuthStats>(running);

const codeAuth = (extra: Partial<Extract<MCPAuthConfig, { type: "oauth" }>> = {}): MCPAuthConfig => ({
  type: "oauth",
  grant: "authorization_code",
  ...extra,
});

describe("OAuth authorization_code", () => {
  it("discovers path-based metadata first, registers dynamically, and logs in with PKCE S256, state and resource", async () => {
    const running = await server({
      dcr: true,
      issuerPath: "/tenant",
      noResourceMetadataHeader: true,
      scopesSupported: ["mcp:read", "mcp:write"],
    });
    const { opened, authorize } = browser();
    const store = new MCPMemoryTokenStore();
    const events: unknown[] = [];
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], {
      authorize,
      tokenStore: store,
    });
    m.on("connected", (event) => events.push(event));
    m.on("connectionFailed", (event) => events.push(event));

    expect(textOf(await m.callTool("remote", "echo", { text: "logged in" }))).toBe("logged in");

    const seen = await stats(running);
    expect(opened).toHaveLength(1);
    // RFC 9728: the path-based well-known URL first; RFC 8414 at the issuer's path-based URL.
    expect(seen.discovery[0]).toBe("/.well-known/oauth-protected-resource/mcp");
    expect(seen.discovery).toContain("/.well-known/oauth-authorization-server/tenant");
    expect(seen.registrations).toHaveLength(1);
    expect(seen.registrations[0]?.method).toBe("none");
    expect(seen.authorizations).toEqual([
      expect.objectContaining({
        client_id: seen.registrations[0]?.client_id,
        code_challenge_method: "S256",
        state_sent: true,
        resource: running.url,
        scope: "mcp:read mcp:write",
      }),
    ]);
    expect(seen.tokenRequests).toEqual([
      expect.objectContaining({ grant_type: "authorization_code", method: "none", resource: running.url }),
    ]);
    expect(seen.rejected).toEqual([]);

    // The login is in the store; no token, verifier or code reached an event.
    const record = await store.get("remote");
    const token = record?.tokens?.access_token as string;
    expect(token).toBeTruthy();
    expect(record?.url).toBe(running.url);
    const code = new URL(opened[0] as URL).searchParams.get("code_challenge") as string;
    const shown = JSON.stringify(events);
    expect(shown).not.toContain(token);
    expect(shown).not.toContain(record?.tokens?.refresh_token as string);
    expect(shown).not.toContain(code);
  });

  it.each([["client_secret_basic"], ["client_secret_post"]])(
    "uses a pre-registered confidential client with %s and the scope from WWW-Authenticate",
    async (method) => {
      const secret = "pre-registered-secret-value";
      const running = await server({
        preClientId: "agentforge",
        preClientSecretEnv: "PRE_SECRET",
        authMethods: [method],
        scopesSupported: ["mcp:read", "mcp:write"],
        challengeScope: "mcp:tools",
        env: { PRE_SECRET: secret },
      });
      const { opened, authorize } = browser();
      const m = manager(
        [
          httpTestServer("remote", running.url, {
            auth: codeAuth({ clientIdEnvVar: "CID", clientSecretEnvVar: "CSECRET" }),
          }),
        ],
        { authorize, env: { CID: "agentforge", CSECRET: secret } },
      );
      expect(textOf(await m.callTool("remote", "add", { a: 2, b: 3 }))).toBe("5");
      const seen = await stats(running);
      expect(opened).toHaveLength(1);
      expect(seen.registrations).toEqual([]);
      expect(seen.authorizations[0]).toMatchObject({ client_id: "agentforge", scope: "mcp:tools" });
      expect(seen.tokenRequests[0]).toMatchObject({ grant_type: "authorization_code", method });
    },
  );

  it("uses a client ID metadata document URL as client id when the server supports it (no registration)", async () => {
    const running = await server({ dcr: true, clientMetadataDocuments: true });
    const { opened, authorize } = browser();
    const clientMetadataUrl = "https://agentforge.example/oauth/client.json";
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth({ clientMetadataUrl }) })], {
      authorize,
    });
    expect(textOf(await m.callTool("remote", "echo", { text: "cimd" }))).toBe("cimd");
    const seen = await stats(running);
    expect(opened).toHaveLength(1);
    expect(seen.registrations).toEqual([]);
    expect(seen.authorizations[0]?.client_id).toBe(clientMetadataUrl);
    expect(seen.tokenRequests[0]).toMatchObject({ grant_type: "authorization_code", method: "none" });
  });

  it("ignores a redirect whose state it did not send (the login goes on until its limit) and never exchanges the code", async () => {
    const running = await server({ dcr: true, tamperState: true });
    const { authorize } = browser();
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], {
      authorize,
      loginTimeoutMs: 1500,
    });
    const error = await rejectionOf(m.callTool("remote", "echo", { text: "x" }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "LOGIN_TIMEOUT", serverName: "remote" });
    const seen = await stats(running);
    expect(seen.authorizations).toHaveLength(1);
    expect(seen.tokenRequests).toEqual([]);
  });

  it.each([
    ["a file: URL", "file:///etc/passwd", "AUTH_FAILED"],
    // The SDK's metadata schema already refuses javascript:, data: and vbscript: URLs.
    ["a javascript: URL", "javascript:alert(1)//", "SERVER_START_FAILED"],
    ["a custom scheme", "ms-settings:privacy", "AUTH_FAILED"],
    ["plain http to another host", "http://authorize.example.invalid/authorize?x=1&calc.exe", "AUTH_FAILED"],
    ["a URL with a password", "https://user:pw@auth.example.invalid/authorize", "AUTH_FAILED"],
  ])(
    "never hands the authorization server's %s to authorize (nothing opened)",
    async (_label, endpoint, code) => {
      const running = await server({ dcr: true, authorizationEndpoint: endpoint });
      const { opened, authorize } = browser();
      const m = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], { authorize });
      const error = await rejectionOf(m.callTool("remote", "echo", { text: "x" }));
      expect(MCPConnectionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ serverName: "remote", code });
      if (code === "AUTH_FAILED") expect(error.message).toMatch(/login URL .* was refused and not opened/);
      expect(error.message).not.toContain(endpoint);
      expect(opened).toEqual([]);
      expect((await stats(running)).tokenRequests).toEqual([]);
    },
  );

  it("steps up on 403 insufficient_scope with the union of scopes, then retries the call", async () => {
    const running = await server({
      dcr: true,
      challengeScope: "mcp:read",
      stepUpTool: "add",
      stepUpScope: "mcp:admin",
    });
    const { opened, authorize } = browser();
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], { authorize });
    expect(textOf(await m.callTool("remote", "echo", { text: "read" }))).toBe("read");
    expect(textOf(await m.callTool("remote", "add", { a: 1, b: 2 }))).toBe("3");
    const seen = await stats(running);
    expect(opened).toHaveLength(2);
    expect(seen.authorizations.map((a) => a.scope?.split(" ").sort().join(" "))).toEqual([
      "mcp:read",
      "mcp:admin mcp:read",
    ]);
    // The step-up was a login, not a refresh (a refresh cannot widen the scopes).
    expect(seen.refreshes).toBe(0);
    expect(textOf(await m.callTool("remote", "add", { a: 2, b: 2 }))).toBe("4");
    expect(opened).toHaveLength(2);
  });

  it("uses the refresh token before asking for a new login, and a stored login across managers", async () => {
    const running = await server({ dcr: true });
    const store: MCPOAuthTokenStore = new MCPMemoryTokenStore();
    const first = browser();
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], {
      authorize: first.authorize,
      tokenStore: store,
    });
    expect(textOf(await m.callTool("remote", "echo", { text: "one" }))).toBe("one");
    await fetch(`${running.origin}/admin/expire-tokens`, { method: "POST" });
    expect(textOf(await m.callTool("remote", "echo", { text: "two" }))).toBe("two");
    expect((await stats(running)).refreshes).toBe(1);
    expect(first.opened).toHaveLength(1);

    // A new process with the same store (as the app's file store gives): no login, no registration.
    await m.closeAll();
    const second = browser();
    const again = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], {
      authorize: second.authorize,
      tokenStore: store,
    });
    expect(textOf(await again.callTool("remote", "echo", { text: "three" }))).toBe("three");
    expect(second.opened).toHaveLength(0);
    const seen = await stats(running);
    expect(seen.registrations).toHaveLength(1);

    // A refresh token that no longer works: a new login, with the same registration.
    await fetch(`${running.origin}/admin/expire-tokens`, { method: "POST" });
    await fetch(`${running.origin}/admin/revoke-refresh`, { method: "POST" });
    await again.closeAll();
    expect(textOf(await again.callTool("remote", "echo", { text: "four" }))).toBe("four");
    expect(second.opened).toHaveLength(1);
    expect((await stats(running)).registrations).toHaveLength(1);
  });

  it("fails with AUTH_REQUIRED (needs login) when it cannot ask for a login, and logout forgets a login", async () => {
    const running = await server({ dcr: true });
    const headless = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], {
      authorize: false,
    });
    const error = await rejectionOf(headless.callTool("remote", "echo", { text: "x" }));
    expect(error).toMatchObject({ code: "AUTH_REQUIRED", serverName: "remote" });
    expect((error as Error).message).toMatch(/needs login/);
    expect((await stats(running)).authorizations).toEqual([]);

    const { opened, authorize } = browser();
    const store = new MCPMemoryTokenStore();
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], {
      authorize,
      tokenStore: store,
    });
    await m.callTool("remote", "echo", { text: "in" });
    await m.logout("remote");
    expect(await store.get("remote")).toBeUndefined();
    await m.callTool("remote", "echo", { text: "in again" });
    expect(opened).toHaveLength(2);
  });

  it("gives up with LOGIN_TIMEOUT when the browser never comes back", async () => {
    const running = await server({ dcr: true });
    let asked = 0;
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth() })], {
      authorize: () => {
        asked++;
      },
      loginTimeoutMs: 300,
    });
    const error = await rejectionOf(m.callTool("remote", "echo", { text: "x" }));
    expect(error).toMatchObject({ code: "LOGIN_TIMEOUT", serverName: "remote" });
    expect(asked).toBe(1);
    expect((await stats(running)).tokenRequests).toEqual([]);
  });
});

describe("OAuth client_credentials with private_key_jwt", () => {
  it.each([
    ["ec", { namedCurve: "P-256" }, undefined, "ES256"],
    ["rsa", { modulusLength: 2048 }, "RS384", "RS384"],
    ["ed25519", {}, undefined, "EdDSA"],
  ] as const)("signs the client assertion with a %s key", async (type, keyOptions, configured, alg) => {
    const dir = tempDir();
    const { privateKey, publicKey } = generateKeyPairSync(type as "ec", keyOptions as { namedCurve: string });
    const keyFile = join(dir, "client.key");
    const publicFile = join(dir, "client.pub");
    writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    writeFileSync(publicFile, publicKey.export({ type: "spki", format: "pem" }));
    const running = await server({ jwtClientId: "robot", jwtPublicKeyFile: publicFile });
    const m = manager(
      [
        httpTestServer("m2m", running.url, {
          auth: {
            type: "oauth",
            grant: "client_credentials",
            clientIdEnvVar: "ROBOT_ID",
            privateKeyFileEnvVar: "ROBOT_KEY",
            issuer: running.origin,
            ...(configured ? { signingAlgorithm: configured } : {}),
          },
        }),
      ],
      { env: { ROBOT_ID: "robot", ROBOT_KEY: keyFile } },
    );
    expect(textOf(await m.callTool("m2m", "echo", { text: "machine" }))).toBe("machine");
    const seen = await stats(running);
    expect(seen.tokenRequests).toEqual([
      expect.objectContaining({ grant_type: "client_credentials", method: "private_key_jwt", alg }),
    ]);
  });

  it("reports an unreadable key file as SERVER_MISCONFIGURED", async () => {
    const running = await server({ dcr: true });
    const notAKey = join(tempDir(), "not-a-key.pem");
    writeFileSync(notAKey, "not a key");
    const m = manager(
      [
        httpTestServer("m2m", running.url, {
          auth: {
            type: "oauth",
            grant: "client_credentials",
            clientIdEnvVar: "ROBOT_ID",
            privateKeyFileEnvVar: "ROBOT_KEY",
          },
        }),
      ],
      { env: { ROBOT_ID: "robot", ROBOT_KEY: notAKey } },
    );
    const error = await rejectionOf(m.callTool("m2m", "echo", { text: "x" }));
    expect(error).toMatchObject({ code: "SERVER_MISCONFIGURED" });
    expect((error as Error).message).toMatch(/ROBOT_KEY/);
  });
});
