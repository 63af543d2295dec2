import { DpopSession } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MCPMemoryTokenStore } from "../../oauth-token-store.js";
import { Redactor } from "../shared/redactor.js";
import { AuthorizationCodeProvider, isUnauthorizedError } from "./authorization-code.js";
import { createDpopKey } from "./dpop-key.js";

const URL_ = "https://remote.example/mcp";

function provider(store = new MCPMemoryTokenStore(), extra: Record<string, unknown> = {}, env = {}) {
  return new AuthorizationCodeProvider({
    serverName: "remote",
    url: URL_,
    auth: { type: "oauth", grant: "authorization_code", redirectPort: 8765, ...extra },
    env,
    store,
    redactor: new Redactor(),
    authorize: false,
    loginTimeoutMs: 1000,
  });
}

describe("AuthorizationCodeProvider", () => {
  it("uses the configured redirect port and describes a public client for registration", async () => {
    const p = provider(undefined, { scope: "repo" });
    await p.prepare();
    expect(p.redirectUrl).toBe("http://127.0.0.1:8765/callback");
    expect(p.clientMetadata).toMatchObject({
      redirect_uris: ["http://127.0.0.1:8765/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
      scope: "repo",
    });
  });

  it("keys the registration and tokens by issuer: another authorization server gets neither (SEP-2352)", async () => {
    const store = new MCPMemoryTokenStore();
    const p = provider(store);
    await p.prepare();
    const as1 = { issuer: "https://as1.example" };
    const as2 = { issuer: "https://as2.example" };
    await p.saveClientInformation({ client_id: "as1-client" }, as1);
    await p.saveTokens({ access_token: "as1-token", token_type: "Bearer" }, as1);
    expect(await p.clientInformation(as1)).toEqual({ client_id: "as1-client" });
    expect((await p.tokens(as1))?.access_token).toBe("as1-token");
    expect(await p.clientInformation(as2)).toBeUndefined();
    expect(await p.tokens(as2)).toBeUndefined();
    // The per-request read (no issuer) gets the latest tokens.
    expect((await p.tokens())?.access_token).toBe("as1-token");
    // Registering with the new server drops the old server's tokens.
    await p.saveClientInformation({ client_id: "as2-client" }, as2);
    expect(await p.tokens()).toBeUndefined();
    expect(await p.clientInformation(as2)).toEqual({ client_id: "as2-client" });
    expect(await p.clientInformation(as1)).toBeUndefined();
    expect((await store.get("remote"))?.issuer).toBe("https://as2.example");
  });

  it("ignores a stored login made for another URL", async () => {
    const store = new MCPMemoryTokenStore();
    store.set("remote", {
      url: "https://other.example/mcp",
      tokens: { access_token: "x", token_type: "Bearer" },
    });
    expect(await provider(store).tokens()).toBeUndefined();
  });

  it("keeps the refresh token when a refresh answer leaves it out, and hides it while stepping up", async () => {
    const store = new MCPMemoryTokenStore();
    const p = provider(store);
    await p.saveTokens({ access_token: "a1", token_type: "Bearer", refresh_token: "r1", scope: "read" });
    await p.saveTokens({ access_token: "a2", token_type: "Bearer", scope: "read" });
    expect((await p.tokens())?.refresh_token).toBe("r1");
    expect(store.get("remote")?.tokens?.access_token).toBe("a2");
    p.observe(
      new Response(null, {
        status: 403,
        headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="admin"' },
      }),
    );
    expect((await p.tokens())?.refresh_token).toBeUndefined();
    const url = new URL("https://as.example/authorize?scope=admin");
    await p.redirectToAuthorization(url);
    expect(url.searchParams.get("scope")?.split(" ").sort()).toEqual(["admin", "read"]);
    expect(p.loginPending).toBe(true);
  });

  it("makes a fresh unguessable state for every login", () => {
    const p = provider();
    const first = p.state();
    const second = p.state();
    expect(first).not.toBe(second);
    expect(first.length).toBeGreaterThanOrEqual(32);
  });

  it("fails fast with AUTH_REQUIRED when it may not ask for a login", async () => {
    const p = provider();
    await p.redirectToAuthorization(new URL("https://as.example/authorize"));
    await expect(p.completeLogin(undefined)).rejects.toMatchObject({ code: "AUTH_REQUIRED" });
  });

  it("reads a pre-registered client from the environment and never stores it", async () => {
    const store = new MCPMemoryTokenStore();
    const p = provider(
      store,
      { clientIdEnvVar: "CID", clientSecretEnvVar: "CS" },
      { CID: "id", CS: "secret" },
    );
    expect(await p.clientInformation()).toEqual({ client_id: "id", client_secret: "secret" });
    await p.saveClientInformation({ client_id: "id", client_secret: "secret" });
    expect(store.get("remote")).toBeUndefined();
    expect(() => provider(store, { clientIdEnvVar: "CID" }, {})).toThrow(/CID, which is not set/);
  });

  it("recognises the SDK's UnauthorizedError through causes", () => {
    class UnauthorizedError extends Error {}
    expect(isUnauthorizedError(new Error("x", { cause: new UnauthorizedError() }))).toBe(true);
    expect(isUnauthorizedError(new Error("x"))).toBe(false);
  });
});

describe("AuthorizationCodeProvider DPoP", () => {
  const dpopMetadata = {
    authorizationServerUrl: "https://as.example",
    authorizationServerMetadata: {
      issuer: "https://as.example",
      authorization_endpoint: "https://as.example/authorize",
      token_endpoint: "https://as.example/token",
      response_types_supported: ["code"],
      dpop_signing_alg_values_supported: ["ES256"],
    },
  };

  it("offers no DPoP session until both the authorization server and the MCP server offer DPoP, then keeps a key in the record", async () => {
    const store = new MCPMemoryTokenStore();
    const p = provider(store);
    expect(await p.dpop()).toBeUndefined();
    await p.saveDiscoveryState(dpopMetadata);
    // The MCP server has not said it takes DPoP tokens (a Bearer challenge says nothing).
    p.observe(new Response(null, { status: 401, headers: { "www-authenticate": 'Bearer realm="x"' } }));
    expect(await p.dpop()).toBeUndefined();
    p.observe(new Response(null, { status: 401, headers: { "www-authenticate": 'DPoP algs="ES256"' } }));
    const session = await p.dpop();
    expect(session?.alg).toBe("ES256");
    expect(await p.dpop()).toBe(session);
    expect(store.get("remote")?.dpopKey?.thumbprint).toBe(session?.thumbprint);
    // A new provider on the same store signs with the same (stored) key.
    expect((await provider(store).dpop())?.thumbprint).toBe(session?.thumbprint);
  });

  it("takes protected-resource metadata that lists DPoP as the MCP server's offer", async () => {
    const p = provider();
    await p.saveDiscoveryState({
      ...dpopMetadata,
      resourceMetadata: { resource: URL_, dpop_bound_access_tokens_required: true },
    });
    expect((await p.dpop())?.alg).toBe("ES256");
  });

  it("never hands out a DPoP-bound access token whose key is missing: only its refresh token is left", async () => {
    const store = new MCPMemoryTokenStore();
    store.set("remote", {
      url: URL_,
      tokens: { access_token: "bound-token", token_type: "DPoP", refresh_token: "refresh" },
    });
    const p = provider(store);
    expect(await p.tokens()).toMatchObject({ access_token: "", refresh_token: "refresh" });
    expect(await p.dpop()).toBeUndefined();
  });

  it("hands out a stored DPoP-bound token with its stored key, and drops the key with the tokens", async () => {
    const store = new MCPMemoryTokenStore();
    const dpopKey = await createDpopKey("ES256");
    store.set("remote", {
      url: URL_,
      tokens: { access_token: "bound-token", token_type: "DPoP" },
      dpopKey,
    });
    const p = provider(store);
    expect((await p.tokens())?.access_token).toBe("bound-token");
    expect((await p.dpop())?.thumbprint).toBe(dpopKey.thumbprint);
    await p.invalidateCredentials("tokens");
    expect(store.get("remote")?.dpopKey).toBeUndefined();
    expect(await p.dpop()).toBeUndefined();
  });

  const movedMetadata = {
    authorizationServerUrl: "https://as2.example",
    authorizationServerMetadata: {
      ...dpopMetadata.authorizationServerMetadata,
      issuer: "https://as2.example",
      authorization_endpoint: "https://as2.example/authorize",
      token_endpoint: "https://as2.example/token",
    },
    resourceMetadata: { resource: URL_, dpop_bound_access_tokens_required: true },
  };

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("never shows a key made for one authorization server to another (SEP-2352 migration): a new key is made", async () => {
    const store = new MCPMemoryTokenStore();
    const p = provider(store);
    await p.saveDiscoveryState({ ...dpopMetadata, resourceMetadata: movedMetadata.resourceMetadata });
    const first = await p.dpop();
    expect(store.get("remote")?.dpopKey?.issuer).toBe("https://as.example");
    await p.saveTokens(
      { access_token: "old-token", token_type: "DPoP", refresh_token: "r" },
      { issuer: "https://as.example" },
    );
    // The MCP server now names another authorization server: the SDK discovers it, then signs the
    // token request with dpop().
    await p.saveDiscoveryState(movedMetadata);
    const second = await p.dpop();
    expect(second?.thumbprint).toBeDefined();
    expect(second?.thumbprint).not.toBe(first?.thumbprint);
    expect(store.get("remote")?.dpopKey).toMatchObject({
      issuer: "https://as2.example",
      thumbprint: second?.thumbprint,
    });
    // The tokens bound to the old key are not used.
    expect(store.get("remote")?.tokens?.access_token).toBe("");
    await p.saveTokens({ access_token: "new-token", token_type: "DPoP" }, { issuer: "https://as2.example" });
    expect(store.get("remote")?.dpopKey?.thumbprint).toBe(second?.thumbprint);
    expect((await p.dpop())?.thumbprint).toBe(second?.thumbprint);
  });

  it("takes a key stored without its issuer as made for the record's issuer", async () => {
    const store = new MCPMemoryTokenStore();
    const dpopKey = await createDpopKey("ES256");
    expect(dpopKey.issuer).toBeUndefined();
    const record = {
      url: URL_,
      issuer: "https://as.example",
      tokens: { access_token: "bound-token", token_type: "DPoP" },
      discoveryState: dpopMetadata,
      dpopKey,
    };
    store.set("remote", record);
    expect((await provider(store).dpop())?.thumbprint).toBe(dpopKey.thumbprint);
    store.set("remote", { ...record, discoveryState: movedMetadata });
    const moved = await provider(store).dpop();
    expect(moved?.thumbprint).not.toBe(dpopKey.thumbprint);
    expect(store.get("remote")?.dpopKey?.issuer).toBe("https://as2.example");
  });

  it("drops a key made for the previous authorization server when the client registers with a new one", async () => {
    const store = new MCPMemoryTokenStore();
    store.set("remote", {
      url: URL_,
      issuer: "https://as.example",
      dpopKey: await createDpopKey("ES256", "https://as.example"),
    });
    await provider(store).saveClientInformation({ client_id: "c" }, { issuer: "https://as2.example" });
    expect(store.get("remote")?.dpopKey).toBeUndefined();
  });

  it("warns, naming the server but never the key, when a stored key cannot be used", async () => {
    const store = new MCPMemoryTokenStore();
    const dpopKey = await createDpopKey("ES256", "https://as.example");
    const damaged = { ...dpopKey, privateJwk: { ...dpopKey.privateJwk, d: "broken" } };
    store.set("remote", {
      url: URL_,
      issuer: "https://as.example",
      tokens: { access_token: "bound-token", token_type: "DPoP", refresh_token: "r" },
      discoveryState: { ...dpopMetadata, resourceMetadata: movedMetadata.resourceMetadata },
      dpopKey: damaged,
    });
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    const session = await provider(store).dpop();
    expect(warn).toHaveBeenCalledTimes(1);
    const [text, options] = warn.mock.calls[0] as unknown as [string, { code: string }];
    expect(options.code).toBe("AGENTFORGE_DPOP_KEY_UNUSABLE");
    expect(text).toContain('"remote"');
    expect(text).not.toContain("broken");
    expect(text).not.toContain(dpopKey.thumbprint);
    // A new key replaces it; the bound access token is not used.
    expect(session?.thumbprint).not.toBe(dpopKey.thumbprint);
    expect(store.get("remote")?.tokens?.access_token).toBe("");
    // Said once: the damaged key is gone.
    await provider(store).dpop();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("does not keep a session that failed to start: the next request tries again", async () => {
    const store = new MCPMemoryTokenStore();
    const p = provider(store);
    await p.saveDiscoveryState({ ...dpopMetadata, resourceMetadata: movedMetadata.resourceMetadata });
    vi.spyOn(DpopSession, "create").mockRejectedValueOnce(new Error("no crypto today"));
    await expect(p.dpop()).rejects.toThrow("no crypto today");
    const session = await p.dpop();
    expect(session?.thumbprint).toBe(store.get("remote")?.dpopKey?.thumbprint);
  });
});
