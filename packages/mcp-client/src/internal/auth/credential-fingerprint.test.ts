import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { credentialFingerprint } from "./credential-fingerprint.js";

/** The parts of a provider the fingerprint reads: its current tokens. */
function provider(token: { current: string | undefined }): OAuthClientProvider {
  return {
    tokens: () => (token.current ? { access_token: token.current, token_type: "Bearer" } : undefined),
  } as unknown as OAuthClientProvider;
}

describe("credentialFingerprint", () => {
  it("is empty without a credential", async () => {
    expect(await credentialFingerprint({})()).toBe("");
    expect(await credentialFingerprint({ headers: {} })()).toBe("");
  });

  it("is a SHA-256 hex digest that never contains the secret", async () => {
    const print = await credentialFingerprint({ headers: { Authorization: "Bearer s3cret-value" } })();
    expect(print).toMatch(/^[0-9a-f]{64}$/);
    expect(print).not.toContain("s3cret");
  });

  it("differs per header value, ignores header name case and order", async () => {
    const a = await credentialFingerprint({ headers: { Authorization: "Bearer a", "X-Team": "t" } })();
    const same = await credentialFingerprint({ headers: { "x-team": "t", authorization: "Bearer a" } })();
    const b = await credentialFingerprint({ headers: { Authorization: "Bearer b", "X-Team": "t" } })();
    expect(same).toBe(a);
    expect(b).not.toBe(a);
  });

  it("follows the OAuth access token the provider holds now (a refresh or step-up changes it)", async () => {
    const token = { current: "token-1" as string | undefined };
    const print = credentialFingerprint({ provider: provider(token) });
    const first = await print();
    token.current = "token-2";
    const second = await print();
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).not.toBe(first);
    token.current = undefined;
    expect(await print()).toBe("");
  });

  it("differs per mTLS certificate", async () => {
    const one = await credentialFingerprint({ certificate: "cert-one" })();
    const two = await credentialFingerprint({ certificate: "cert-two" })();
    expect(one).not.toBe(two);
  });
});
