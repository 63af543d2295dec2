// DPoP (RFC 9449, MCP SEP-1932) against the in-repo authorization server + MCP server (test-servers
// --auth-server --dpop): it advertises dpop_signing_alg_values_supported, binds tokens to the key of the
// token request's proof, checks every proof at /mcp in full (signature with the header's JWK, htm, htu,
// iat, unused jti, ath, the token's key), demands nonces with --dpop-nonce, and refuses a bound token
// sent as Bearer. Driven through the real MCPClientManager.

import { generateKeyPairSync, randomUUID, sign } from "node:crypto";
import type { MCPAuthConfig } from "@agentforge/mcp-config";
import {
  type HttpTestServerOptions,
  httpTestServer,
  type RunningHttpTestServer,
} from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { MCPMemoryTokenStore } from "../../src/index.js";
import { authTestServer, browser, cleanup, manager, oauthStats, textOf } from "./helpers.js";

afterEach(cleanup);

interface DpopStats {
  dpop: {
    tokenProofs: number;
    boundTokens: number;
    rsProofs: number;
    asNonceChallenges: number;
    rsNonceChallenges: number;
    bearerWithBoundToken: number;
    rejected: string[];
  };
  tokenRequests: { grant_type: string }[];
  refreshes: number;
  rejected: { error: string; description: string }[];
}

/** The authorization server with dynamic client registration on. */
const server = (options: HttpTestServerOptions) => authTestServer({ dcr: true, ...options });
const stats = (running: RunningHttpTestServer) => oauthStats<DpopStats>(running);

const codeAuth: MCPAuthConfig = { type: "oauth", grant: "authorization_code" };

/** One login and call through a first manager (then closed): the store keeps the login and its key. */
async function loggedInOnce(running: RunningHttpTestServer) {
  const { opened, authorize } = browser();
  const store = new MCPMemoryTokenStore();
  const first = manager([httpTestServer("remote", running.url, { auth: codeAuth })], {
    authorize,
    tokenStore: store,
  });
  expect(textOf(await first.callTool("remote", "echo", { text: "first" }))).toBe("first");
  await first.closeAll();
  return { opened, authorize, store };
}

describe("DPoP (RFC 9449)", () => {
  it("gets a DPoP-bound token with a proof and presents it with the DPoP scheme and a fresh proof per request", async () => {
    const running = await server({ dpop: true });
    const { opened, authorize } = browser();
    const store = new MCPMemoryTokenStore();
    const events: unknown[] = [];
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth })], {
      authorize,
      tokenStore: store,
    });
    m.on("connected", (event) => events.push(event));
    m.on("connectionFailed", (event) => events.push(event));

    expect(textOf(await m.callTool("remote", "echo", { text: "one" }))).toBe("one");
    expect(textOf(await m.callTool("remote", "add", { a: 1, b: 2 }))).toBe("3");

    const seen = await stats(running);
    expect(opened).toHaveLength(1);
    expect(seen.dpop.tokenProofs).toBe(1);
    expect(seen.dpop.boundTokens).toBe(1);
    expect(seen.dpop.rejected).toEqual([]);
    expect(seen.dpop.bearerWithBoundToken).toBe(0);
    // initialize, initialized, tools/list, two calls: each with its own proof (a reused jti is refused).
    expect(seen.dpop.rsProofs).toBeGreaterThanOrEqual(4);

    // The key is kept with the token it is bound to; neither reaches an event.
    const record = await store.get("remote");
    expect(record?.tokens?.token_type).toMatch(/^dpop$/i);
    expect(record?.dpopKey).toMatchObject({ alg: "ES256", privateJwk: { kty: "EC", crv: "P-256" } });
    const shown = JSON.stringify(events);
    expect(shown).not.toContain(record?.tokens?.access_token as string);
    expect(shown).not.toContain(record?.dpopKey?.privateJwk.d as string);
  });

  it("retries once with the nonce the authorization server and the MCP server demand", async () => {
    const running = await server({ dpopNonce: true });
    const { opened, authorize } = browser();
    const m = manager([httpTestServer("remote", running.url, { auth: codeAuth })], { authorize });

    expect(textOf(await m.callTool("remote", "echo", { text: "nonce" }))).toBe("nonce");
    let seen = await stats(running);
    expect(opened).toHaveLength(1);
    expect(seen.dpop.asNonceChallenges).toBe(1);
    expect(seen.dpop.tokenProofs).toBe(1);
    expect(seen.dpop.rsNonceChallenges).toBe(1);
    expect(seen.dpop.rejected).toEqual([]);

    // The MCP server changes its nonce: the next request is challenged once and retried with the new one.
    await fetch(`${running.origin}/admin/rotate-dpop-nonces`, { method: "POST" });
    expect(textOf(await m.callTool("remote", "echo", { text: "again" }))).toBe("again");
    seen = await stats(running);
    expect(seen.dpop.rsNonceChallenges).toBe(2);
    expect(seen.dpop.rejected).toEqual([]);
    expect(seen.dpop.bearerWithBoundToken).toBe(0);
    expect(opened).toHaveLength(1);
  });

  it("reuses a stored DPoP-bound token with its stored key in a new manager (no new login)", async () => {
    const running = await server({ dpop: true });
    const { opened, authorize, store } = await loggedInOnce(running);
    const proofsBefore = (await stats(running)).dpop.rsProofs;

    const second = manager([httpTestServer("remote", running.url, { auth: codeAuth })], {
      authorize,
      tokenStore: store,
    });
    expect(textOf(await second.callTool("remote", "echo", { text: "second" }))).toBe("second");
    const seen = await stats(running);
    expect(opened).toHaveLength(1);
    expect(seen.tokenRequests).toHaveLength(1);
    expect(seen.dpop.rsProofs).toBeGreaterThan(proofsBefore);
    expect(seen.dpop.rejected).toEqual([]);
    expect(seen.dpop.bearerWithBoundToken).toBe(0);
  });

  it("never sends a stored DPoP-bound token without its key (not as Bearer either): it logs in again", async () => {
    const running = await server({ dpop: true });
    const { opened, authorize, store } = await loggedInOnce(running);
    // The key is gone (a store that lost it, or a record written by another program).
    const record = await store.get("remote");
    const oldToken = record?.tokens?.access_token;
    if (record) delete record.dpopKey;
    await store.set("remote", record as NonNullable<typeof record>);

    const second = manager([httpTestServer("remote", running.url, { auth: codeAuth })], {
      authorize,
      tokenStore: store,
    });
    expect(textOf(await second.callTool("remote", "echo", { text: "second" }))).toBe("second");
    const seen = await stats(running);
    expect(seen.dpop.bearerWithBoundToken).toBe(0);
    expect(seen.dpop.rejected).toEqual([]);
    // The public client's refresh token is bound to the lost key: refused, then a fresh login.
    expect(opened).toHaveLength(2);
    expect(seen.dpop.boundTokens).toBe(2);
    const after = await store.get("remote");
    expect(after?.tokens?.access_token).not.toBe(oldToken);
    expect(after?.dpopKey?.thumbprint).toBeTruthy();
  });

  it("uses DPoP only where the MCP server takes it too: not behind a DPoP-capable authorization server in front of a Bearer-only server", async () => {
    const both = await server({ dpop: true });
    const asOnly = await server({ dpopAsOnly: true });
    const { opened, authorize } = browser();
    const m = manager(
      [
        httpTestServer("both", both.url, { auth: codeAuth }),
        httpTestServer("bearer-only", asOnly.url, { auth: codeAuth }),
      ],
      { authorize },
    );
    expect(textOf(await m.callTool("both", "echo", { text: "dpop" }))).toBe("dpop");
    expect(textOf(await m.callTool("bearer-only", "echo", { text: "bearer" }))).toBe("bearer");
    expect(opened).toHaveLength(2);
    const dpopSide = await stats(both);
    expect(dpopSide.dpop.boundTokens).toBe(1);
    expect(dpopSide.dpop.rsProofs).toBeGreaterThanOrEqual(3);
    const bearerSide = await stats(asOnly);
    expect(bearerSide.dpop.tokenProofs).toBe(0);
    expect(bearerSide.dpop.boundTokens).toBe(0);
    expect(bearerSide.dpop.rejected).toEqual([]);
  });

  it("uses DPoP for client_credentials when both servers offer it", async () => {
    const running = await server({
      dpop: true,
      ccClientId: "robot",
      ccClientSecretEnv: "CC_SECRET",
      env: { CC_SECRET: "s3cret-value" },
    });
    const m = manager(
      [
        httpTestServer("m2m", running.url, {
          auth: {
            type: "oauth",
            grant: "client_credentials",
            clientIdEnvVar: "ROBOT_ID",
            clientSecretEnvVar: "ROBOT_SECRET",
            issuer: running.origin,
          },
        }),
      ],
      { env: { ROBOT_ID: "robot", ROBOT_SECRET: "s3cret-value" } },
    );
    expect(textOf(await m.callTool("m2m", "echo", { text: "machine" }))).toBe("machine");
    const seen = await stats(running);
    expect(seen.tokenRequests).toEqual([expect.objectContaining({ grant_type: "client_credentials" })]);
    expect(seen.dpop.tokenProofs).toBe(1);
    expect(seen.dpop.boundTokens).toBe(1);
    expect(seen.dpop.rsProofs).toBeGreaterThanOrEqual(3);
    expect(seen.dpop.rejected).toEqual([]);
    expect(seen.dpop.bearerWithBoundToken).toBe(0);
  });

  it("the test authorization server refuses proofs with an algorithm it does not advertise, or a key not of the algorithm", async () => {
    const running = await server({ dpop: true, dpopAlgs: ["ES256"] });
    const registered = await fetch(`${running.origin}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        token_endpoint_auth_method: "none",
        redirect_uris: ["http://127.0.0.1:1/callback"],
      }),
    });
    const { client_id } = (await registered.json()) as { client_id: string };
    const tokenUrl = `${running.origin}/token`;
    /** A DPoP proof for the token request, signed by hand: `alg` in the header, a key on `curve`. */
    const proof = (alg: string, curve: string, hash: string) => {
      const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: curve });
      const jwk = publicKey.export({ format: "jwk" });
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
      const input = `${part({ typ: "dpop+jwt", alg, jwk })}.${part({ jti: randomUUID(), htm: "POST", htu: tokenUrl, iat: Math.floor(Date.now() / 1000) })}`;
      const signature = sign(hash, Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" });
      return `${input}.${signature.toString("base64url")}`;
    };
    const tokenRequest = async (dpop: string) => {
      const response = await fetch(tokenUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", dpop },
        body: new URLSearchParams({ grant_type: "authorization_code", client_id, code: "no-such-code" }),
      });
      return { status: response.status, ...((await response.json()) as { error: string }) };
    };
    // A well-formed ES256 proof passes the proof check (the made-up code is what fails).
    expect(await tokenRequest(proof("ES256", "P-256", "sha256"))).toMatchObject({ error: "invalid_grant" });
    // ES384 is a fine algorithm, but this server only advertises ES256.
    expect(await tokenRequest(proof("ES384", "P-384", "sha384"))).toMatchObject({
      status: 400,
      error: "invalid_dpop_proof",
    });
    // The header says ES256, the key is a P-384 key (the signature itself verifies).
    expect(await tokenRequest(proof("ES256", "P-384", "sha256"))).toMatchObject({
      status: 400,
      error: "invalid_dpop_proof",
    });
    expect((await stats(running)).dpop.rejected).toEqual([
      "token: alg is not one this server advertises",
      "token: the jwk is not a key for alg",
    ]);
  });
});
