import { createHash, createPublicKey, verify } from "node:crypto";
import { DpopSession } from "@modelcontextprotocol/client";
import { describe, expect, it, vi } from "vitest";
import { Redactor } from "../shared/redactor.js";
import {
  createDpopKey,
  dpopAlgorithm,
  EphemeralDpop,
  isDpopBound,
  isDpopChallenge,
  resourceOffersDpop,
  restoreDpopKey,
} from "./dpop-key.js";

const metadata = (algs: unknown) =>
  ({
    issuer: "https://as.example",
    authorization_endpoint: "https://as.example/authorize",
    token_endpoint: "https://as.example/token",
    response_types_supported: ["code"],
    dpop_signing_alg_values_supported: algs,
  }) as never;

function claimsOf(proof: string) {
  const [header, payload] = proof.split(".") as [string, string];
  return {
    header: JSON.parse(Buffer.from(header, "base64url").toString("utf8")),
    payload: JSON.parse(Buffer.from(payload, "base64url").toString("utf8")),
  };
}

describe("dpopAlgorithm", () => {
  it("uses DPoP only when the authorization server lists an algorithm we sign with", () => {
    expect(dpopAlgorithm(undefined)).toBeUndefined();
    expect(dpopAlgorithm(metadata(undefined))).toBeUndefined();
    expect(dpopAlgorithm(metadata([]))).toBeUndefined();
    expect(dpopAlgorithm(metadata(["RS256", "none"]))).toBeUndefined();
    expect(dpopAlgorithm(metadata(["RS256", "ES384", "ES256"]))).toBe("ES256");
    expect(dpopAlgorithm(metadata(["ES512"]))).toBe("ES512");
  });

  it("tells DPoP-bound tokens by token_type, in any case", () => {
    expect(isDpopBound({ token_type: "DPoP" })).toBe(true);
    expect(isDpopBound({ token_type: "dpop" })).toBe(true);
    expect(isDpopBound({ token_type: "Bearer" })).toBe(false);
    expect(isDpopBound(undefined)).toBe(false);
  });
});

describe("the MCP server's DPoP offer", () => {
  const answer = (status: number, challenge: string) =>
    new Response(null, { status, headers: { "www-authenticate": challenge } });

  it("finds a DPoP challenge among the schemes of a 401", () => {
    expect(isDpopChallenge(answer(401, 'DPoP algs="ES256"'))).toBe(true);
    expect(isDpopChallenge(answer(401, "DPoP"))).toBe(true);
    expect(isDpopChallenge(answer(401, 'Bearer realm="x", DPoP algs="ES256"'))).toBe(true);
    expect(isDpopChallenge(answer(401, 'dpop error="use_dpop_nonce"'))).toBe(true);
    expect(isDpopChallenge(answer(401, 'Bearer realm="DPoP"'))).toBe(false);
    expect(isDpopChallenge(answer(401, "DPoPish x=1"))).toBe(false);
    expect(isDpopChallenge(answer(403, "DPoP"))).toBe(false);
  });

  it("reads protected-resource metadata (RFC 9728)", () => {
    expect(resourceOffersDpop(undefined)).toBe(false);
    expect(resourceOffersDpop({ resource: "https://rs.example/mcp" })).toBe(false);
    expect(
      resourceOffersDpop({ resource: "https://rs.example/mcp", dpop_signing_alg_values_supported: [] }),
    ).toBe(false);
    expect(
      resourceOffersDpop({
        resource: "https://rs.example/mcp",
        dpop_signing_alg_values_supported: ["ES256"],
      }),
    ).toBe(true);
    expect(
      resourceOffersDpop({ resource: "https://rs.example/mcp", dpop_bound_access_tokens_required: true }),
    ).toBe(true);
  });
});

describe("stored DPoP keys", () => {
  it("round-trips a key through its stored form and signs proofs the public JWK verifies", async () => {
    const stored = await createDpopKey("ES256");
    expect(stored.privateJwk).toMatchObject({ kty: "EC", crv: "P-256" });
    expect(stored.publicJwk).not.toHaveProperty("d");
    const thumbprint = createHash("sha256")
      .update(
        JSON.stringify({
          crv: stored.publicJwk.crv,
          kty: stored.publicJwk.kty,
          x: stored.publicJwk.x,
          y: stored.publicJwk.y,
        }),
      )
      .digest("base64url");
    expect(stored.thumbprint).toBe(thumbprint);

    const pair = await restoreDpopKey(JSON.parse(JSON.stringify(stored)));
    expect(pair?.thumbprint).toBe(thumbprint);
    expect(pair?.privateKey.extractable).toBe(false);
    const { DpopSession } = await import("@modelcontextprotocol/client");
    const session = await DpopSession.create({ keyPair: pair as NonNullable<typeof pair> });
    const proof = await session.buildProof({
      htm: "post",
      htu: "https://rs.example/mcp?x=1",
      accessToken: "tok",
    });
    const { header, payload } = claimsOf(proof);
    expect(header).toMatchObject({ typ: "dpop+jwt", alg: "ES256", jwk: stored.publicJwk });
    expect(payload).toMatchObject({
      htm: "POST",
      htu: "https://rs.example/mcp",
      ath: createHash("sha256").update("tok").digest("base64url"),
    });
    const [h, p, s] = proof.split(".") as [string, string, string];
    const key = createPublicKey({ key: stored.publicJwk as never, format: "jwk" });
    const signature = Buffer.from(s, "base64url");
    expect(verify("sha256", Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }, signature)).toBe(
      true,
    );
  });

  it("treats a damaged or foreign stored key as no key", async () => {
    const stored = await createDpopKey("ES256");
    expect(await restoreDpopKey({ ...stored, alg: "RS256" })).toBeUndefined();
    expect(
      await restoreDpopKey({ ...stored, privateJwk: { ...stored.privateJwk, d: "AAAA" } }),
    ).toBeUndefined();
    expect(await restoreDpopKey({ ...stored, thumbprint: "" })).toBeUndefined();
  });
});

describe("EphemeralDpop (client_credentials)", () => {
  it("offers a session only once both servers offer DPoP, then keeps the same one", async () => {
    const dpop = new EphemeralDpop();
    expect(dpop.get(new Redactor())).toBeUndefined();
    dpop.discovered({
      authorizationServerUrl: "https://as.example",
      authorizationServerMetadata: metadata(["ES256"]),
    });
    // The authorization server offers DPoP, the MCP server has not said it takes it yet.
    expect(dpop.get(new Redactor())).toBeUndefined();
    dpop.answered(new Response(null, { status: 401, headers: { "www-authenticate": 'DPoP algs="ES256"' } }));
    const redactor = new Redactor();
    const first = await dpop.get(redactor);
    expect(first?.alg).toBe("ES256");
    expect(await dpop.get(redactor)).toBe(first);
    // Its proofs are redacted whole wherever they would be shown.
    const proof = (await first?.buildProof({ htm: "POST", htu: "https://rs.example/mcp" })) as string;
    expect(redactor.redact(`echoed: DPoP: ${proof}; done`)).toBe("echoed: DPoP: [REDACTED]; done");
    expect(redactor.leaks(proof)).toBe(true);
  });

  it("does not keep a session that failed to start: the next request tries again", async () => {
    const dpop = new EphemeralDpop();
    dpop.discovered({
      authorizationServerUrl: "https://as.example",
      authorizationServerMetadata: metadata(["ES256"]),
    });
    dpop.answered(new Response(null, { status: 401, headers: { "www-authenticate": 'DPoP algs="ES256"' } }));
    const create = vi.spyOn(DpopSession, "create").mockRejectedValueOnce(new Error("no crypto today"));
    try {
      await expect(dpop.get(new Redactor())).rejects.toThrow("no crypto today");
      const second = await dpop.get(new Redactor());
      expect(second?.alg).toBe("ES256");
    } finally {
      create.mockRestore();
    }
  });
});
