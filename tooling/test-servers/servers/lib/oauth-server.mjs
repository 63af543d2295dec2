// An OAuth 2.1 authorization server in front of the test MCP server (flag --auth-server): protected
// resource metadata (RFC 9728), authorization-server metadata (RFC 8414, path-based issuer), dynamic
// registration (RFC 7591), authorization code + PKCE S256 with `state` and `resource` (RFC 8707),
// refresh tokens, client_credentials with a secret or a private-key JWT (RFC 7523), scopes and step-up.
// The authorize endpoint needs no browser: it redirects straight back to the redirect_uri with a code.
// With --dpop it issues DPoP-bound tokens (RFC 9449) and enforces them at /mcp (see `dpopProof`); with
// --dpop-nonce both the token endpoint and /mcp also demand a server-supplied nonce.
// Everything it sees is counted in `GET /admin/oauth` so tests can prove what the client did.

import { createHash, createPublicKey, randomBytes, timingSafeEqual, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { HOSTILE_TEXT } from "./hostile-text.mjs";

const list = (value) => (typeof value === "string" ? value.split(",").filter(Boolean) : []);
const b64url = (buffer) => Buffer.from(buffer).toString("base64url");
const same = (a, b) => {
  const x = Buffer.from(String(a));
  const y = Buffer.from(String(b));
  return x.length === y.length && timingSafeEqual(x, y);
};

const HASH = {
  RS256: "sha256",
  RS384: "sha384",
  RS512: "sha512",
  PS256: "sha256",
  ES256: "sha256",
  ES384: "sha384",
  ES512: "sha512",
};

/** Verify a compact JWS with a public key; returns the claims or undefined. */
function verifyJwt(token, publicKey) {
  const [h, p, s] = String(token).split(".");
  if (!h || !p || !s) return undefined;
  const header = JSON.parse(Buffer.from(h, "base64url").toString("utf8"));
  const data = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, "base64url");
  const alg = header.alg;
  let ok = false;
  if (alg === "EdDSA") ok = verify(null, data, publicKey, signature);
  else if (alg?.startsWith("ES"))
    ok = verify(HASH[alg], data, { key: publicKey, dsaEncoding: "ieee-p1363" }, signature);
  else if (alg?.startsWith("PS"))
    ok = verify(HASH[alg], data, { key: publicKey, padding: 6, saltLength: 32 }, signature);
  else if (HASH[alg]) ok = verify(HASH[alg], data, publicKey, signature);
  if (!ok) return undefined;
  return { alg, claims: JSON.parse(Buffer.from(p, "base64url").toString("utf8")) };
}

/** RFC 7638 JWK SHA-256 thumbprint (EC, OKP and RSA public keys). */
function thumbprint(jwk) {
  const members =
    jwk.kty === "EC"
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
      : jwk.kty === "OKP"
        ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
        : { e: jwk.e, kty: jwk.kty, n: jwk.n };
  return b64url(createHash("sha256").update(JSON.stringify(members)).digest());
}

const DPOP_ALGS = ["ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "EdDSA"];

/** Whether a JWK is a key `alg` signs with (RFC 7518 §3: the key type, and the curve for EC and OKP). */
function keyFitsAlg(jwk, alg) {
  const curves = { ES256: "P-256", ES384: "P-384", ES512: "P-521" };
  if (curves[alg]) return jwk.kty === "EC" && jwk.crv === curves[alg];
  if (alg === "EdDSA") return jwk.kty === "OKP" && (jwk.crv === "Ed25519" || jwk.crv === "Ed448");
  return jwk.kty === "RSA";
}
/** How far a proof's `iat` may be from now (seconds). */
const DPOP_IAT_WINDOW = 120;

/**
 * Check a DPoP proof (RFC 9449 §4.3) for a request: one compact JWS of `typ` dpop+jwt, an asymmetric
 * `alg`, a public `jwk` header (no private members) that verifies the signature, `htm` and `htu` of
 * this request, a recent `iat`, a `jti` never seen before (`seen`), `ath` = base64url(SHA-256(token))
 * when a token is presented, and `nonce` when one is required. Only the algorithms the server
 * advertises (`algs`, its dpop_signing_alg_values_supported) are taken, each only with a key of its
 * type and curve. Returns { jkt } or { error, nonce? }.
 */
function dpopProof(header, { method, url, accessToken, nonce, seen, algs }) {
  if (typeof header !== "string" || !header || header.includes(",")) {
    return { error: "exactly one DPoP proof is required" };
  }
  let head;
  try {
    head = JSON.parse(Buffer.from(header.split(".")[0], "base64url").toString("utf8"));
  } catch {
    return { error: "the DPoP proof is not a JWS" };
  }
  if (head.typ !== "dpop+jwt") return { error: "typ is not dpop+jwt" };
  if (!DPOP_ALGS.includes(head.alg)) return { error: "alg is not an asymmetric algorithm" };
  if (!algs.includes(head.alg)) return { error: "alg is not one this server advertises" };
  const jwk = head.jwk;
  if (!jwk || typeof jwk !== "object") return { error: "no jwk header" };
  if (!keyFitsAlg(jwk, head.alg)) return { error: "the jwk is not a key for alg" };
  if (["d", "p", "q", "dp", "dq", "qi"].some((member) => member in jwk)) {
    return { error: "the jwk header holds a private key" };
  }
  let verified;
  try {
    verified = verifyJwt(header, createPublicKey({ key: jwk, format: "jwk" }));
  } catch {
    verified = undefined;
  }
  if (!verified) return { error: "the DPoP proof signature does not verify" };
  const claims = verified.claims;
  if (typeof claims.jti !== "string" || !claims.jti) return { error: "no jti" };
  if (claims.htm !== method) return { error: "htm does not match" };
  if (claims.htu !== url) return { error: "htu does not match" };
  if (typeof claims.iat !== "number" || Math.abs(Date.now() / 1000 - claims.iat) > DPOP_IAT_WINDOW) {
    return { error: "iat is not recent" };
  }
  if (seen.has(claims.jti)) return { error: "jti was used before" };
  seen.add(claims.jti);
  if (accessToken !== undefined) {
    const ath = b64url(createHash("sha256").update(accessToken, "ascii").digest());
    if (claims.ath !== ath) return { error: "ath does not match the access token" };
  }
  if (nonce !== undefined && claims.nonce !== nonce) return { error: "nonce required", nonce: true };
  return { jkt: thumbprint(jwk) };
}

/**
 * Options (flags of http-server.mjs): authServer, issuerPath (e.g. /tenant: metadata only at the
 * path-based well-known), noResourceMetadataHeader, dcr, preClientId + preClientSecretEnv,
 * authMethods (token_endpoint_auth_methods_supported), scopesSupported, challengeScope,
 * stepUpTool + stepUpScope, tamperState, jwtClientId + jwtPublicKeyFile, ccClientId + ccClientSecretEnv,
 * clientMetadataDocuments (advertise client_id_metadata_document_supported), authorizationEndpoint
 * (advertise that URL instead of its own /authorize: a hostile server's choice), dpop (offer DPoP:
 * ES256/384/512 in the metadata, bound tokens, proofs checked at /mcp, a bound token refused as Bearer),
 * dpopNonce (also demand server nonces, RFC 9449 §8 and §9), dpopAlgs (the algorithms offered),
 * dpopAsOnly (the authorization server offers DPoP, /mcp only takes Bearer and refuses the DPoP scheme).
 */
export function createOAuthServer(options, getOrigin) {
  const methods = list(options.authMethods).length
    ? list(options.authMethods)
    : ["client_secret_basic", "client_secret_post", "none"];
  const issuerPath = typeof options.issuerPath === "string" ? options.issuerPath : "";
  const clients = new Map(); // client_id -> { secret?, redirect_uris, method }
  if (typeof options.preClientId === "string") {
    const secret =
      typeof options.preClientSecretEnv === "string" ? process.env[options.preClientSecretEnv] : undefined;
    clients.set(options.preClientId, {
      secret,
      redirect_uris: "any-loopback",
      method: secret ? undefined : "none",
    });
  }
  const jwtKey =
    typeof options.jwtPublicKeyFile === "string"
      ? createPublicKey(readFileSync(options.jwtPublicKeyFile))
      : undefined;
  const ccSecret =
    typeof options.ccClientSecretEnv === "string" ? process.env[options.ccClientSecretEnv] : undefined;
  const codes = new Map(); // code -> grant
  const accessTokens = new Map(); // token -> { scope, client_id }
  const refreshTokens = new Map(); // token -> { scope, client_id, resource }
  const dpop = Boolean(options.dpop || options.dpopNonce || options.dpopAsOnly);
  // dpopAsOnly: the authorization server binds tokens, but /mcp only knows Bearer (and refuses DPoP).
  const rsDpop = dpop && !options.dpopAsOnly;
  const dpopAlgs = list(options.dpopAlgs).length ? list(options.dpopAlgs) : ["ES256", "ES384", "ES512"];
  const seenJtis = new Set();
  // The nonces each side demands (RFC 9449 §8, §9); /admin/rotate-dpop-nonces replaces them.
  const nonces = { as: b64url(randomBytes(12)), rs: b64url(randomBytes(12)) };
  const stats = {
    dpop: {
      tokenProofs: 0,
      boundTokens: 0,
      rsProofs: 0,
      asNonceChallenges: 0,
      rsNonceChallenges: 0,
      bearerWithBoundToken: 0,
      rejected: [],
    },
    discovery: [],
    registrations: [],
    authorizations: [],
    tokenRequests: [],
    refreshes: 0,
    rejected: [],
  };
  const issuer = () => `${getOrigin()}${issuerPath}`;
  const resource = () => `${getOrigin()}/mcp`;
  const prmUrl = () => `${getOrigin()}/.well-known/oauth-protected-resource/mcp`;

  function json(res, status, body, headers = {}) {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    res.end(JSON.stringify(body));
  }
  const reject = (res, status, error, description) => {
    stats.rejected.push({ error, description });
    json(res, status, { error, error_description: description });
  };

  function metadata() {
    return {
      issuer: issuer(),
      authorization_endpoint:
        typeof options.authorizationEndpoint === "string"
          ? options.authorizationEndpoint
          : `${getOrigin()}/authorize`,
      token_endpoint: `${getOrigin()}/token`,
      ...(options.dcr ? { registration_endpoint: `${getOrigin()}/register` } : {}),
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: [...methods, ...(jwtKey ? ["private_key_jwt"] : [])],
      ...(options.clientMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
      ...(dpop ? { dpop_signing_alg_values_supported: dpopAlgs } : {}),
      ...(list(options.scopesSupported).length ? { scopes_supported: list(options.scopesSupported) } : {}),
    };
  }

  function issue(res, grant) {
    const access = b64url(randomBytes(24));
    accessTokens.set(access, { scope: grant.scope ?? "", client_id: grant.client_id, jkt: grant.jkt });
    if (grant.jkt) stats.dpop.boundTokens++;
    const body = { access_token: access, token_type: grant.jkt ? "DPoP" : "Bearer", expires_in: 3600 };
    if (grant.scope) body.scope = grant.scope;
    if (grant.refresh) {
      const refresh = b64url(randomBytes(24));
      refreshTokens.set(refresh, {
        scope: grant.scope,
        client_id: grant.client_id,
        resource: grant.resource,
        // RFC 9449 §5: a public client's refresh token is bound to the key too.
        ...(grant.jkt && grant.public ? { jkt: grant.jkt } : {}),
      });
      body.refresh_token = refresh;
    }
    json(res, 200, body);
  }

  /** Which client authenticated at the token endpoint, and how; undefined when it failed. */
  function clientAuth(req, params, res) {
    const header = req.headers.authorization ?? "";
    if (params.get("client_assertion")) {
      const verified = jwtKey && verifyJwt(params.get("client_assertion"), jwtKey);
      const claims = verified?.claims;
      const now = Date.now() / 1000;
      if (
        !claims ||
        claims.iss !== options.jwtClientId ||
        claims.sub !== options.jwtClientId ||
        !(claims.exp > now) ||
        ![issuer(), `${getOrigin()}/token`].includes(Array.isArray(claims.aud) ? claims.aud[0] : claims.aud)
      ) {
        reject(res, 401, "invalid_client", "client assertion rejected");
        return undefined;
      }
      return { client_id: claims.sub, method: "private_key_jwt", alg: verified.alg };
    }
    let id;
    let secret;
    let method = "none";
    if (header.startsWith("Basic ")) {
      [id, secret] = Buffer.from(header.slice(6), "base64")
        .toString("utf8")
        .split(":")
        .map(decodeURIComponent);
      method = "client_secret_basic";
    } else if (params.get("client_secret")) {
      id = params.get("client_id");
      secret = params.get("client_secret");
      method = "client_secret_post";
    } else {
      id = params.get("client_id");
    }
    if (!methods.includes(method)) {
      reject(res, 401, "invalid_client", `token endpoint auth method ${method} is not supported`);
      return undefined;
    }
    if (id === options.ccClientId && ccSecret) {
      if (secret === undefined || !same(secret, ccSecret)) {
        reject(res, 401, "invalid_client", "wrong secret");
        return undefined;
      }
      return { client_id: id, method };
    }
    const client = clients.get(id);
    if (!client) {
      reject(res, 401, "invalid_client", "unknown client");
      return undefined;
    }
    if (client.secret && (secret === undefined || !same(secret, client.secret))) {
      reject(res, 401, "invalid_client", "wrong or missing client secret");
      return undefined;
    }
    return { client_id: id, method };
  }

  function redirectAllowed(client, uri) {
    if (client.redirect_uris === "any-loopback") return /^http:\/\/127\.0\.0\.1:\d+\//.test(uri);
    return client.redirect_uris.includes(uri);
  }

  async function handle(req, res, url, readBody) {
    const path = url.pathname;
    if (path.startsWith("/.well-known/")) stats.discovery.push(path);
    if (
      path === "/.well-known/oauth-protected-resource/mcp" ||
      path === "/.well-known/oauth-protected-resource"
    ) {
      if (path === "/.well-known/oauth-protected-resource" && options.issuerPath) {
        json(res, 404, { error: "not_found" });
        return true;
      }
      json(res, 200, {
        resource: resource(),
        authorization_servers: [issuer()],
        ...(list(options.scopesSupported).length ? { scopes_supported: list(options.scopesSupported) } : {}),
      });
      return true;
    }
    const asWellKnown = [
      `/.well-known/oauth-authorization-server${issuerPath}`,
      ...(issuerPath ? [] : ["/.well-known/openid-configuration"]),
    ];
    if (asWellKnown.includes(path)) {
      json(res, 200, metadata());
      return true;
    }
    if (path.startsWith("/.well-known/")) {
      json(res, 404, { error: "not_found" });
      return true;
    }
    if (path === "/register" && req.method === "POST" && options.dcr) {
      const body = JSON.parse((await readBody()) || "{}");
      const method = body.token_endpoint_auth_method ?? "client_secret_basic";
      const client_id = `dcr-${b64url(randomBytes(8))}`;
      const secret = method === "none" ? undefined : b64url(randomBytes(16));
      clients.set(client_id, { secret, redirect_uris: body.redirect_uris ?? [], method });
      stats.registrations.push({ client_id, redirect_uris: body.redirect_uris, method, scope: body.scope });
      json(res, 201, {
        ...body,
        client_id,
        ...(secret ? { client_secret: secret } : {}),
        client_id_issued_at: Math.floor(Date.now() / 1000),
      });
      return true;
    }
    if (path === "/authorize" && req.method === "GET") {
      const q = url.searchParams;
      const record = {
        client_id: q.get("client_id"),
        redirect_uri: q.get("redirect_uri"),
        scope: q.get("scope"),
        resource: q.get("resource"),
        state_sent: q.get("state") !== null,
        code_challenge_method: q.get("code_challenge_method"),
      };
      stats.authorizations.push(record);
      let client = clients.get(record.client_id);
      if (!client && options.clientMetadataDocuments && record.client_id?.startsWith("https://")) {
        client = { redirect_uris: "any-loopback", method: "none" };
        clients.set(record.client_id, client);
      }
      if (!client || !redirectAllowed(client, record.redirect_uri ?? "")) {
        json(res, 400, { error: "invalid_request", error_description: "unknown client or redirect_uri" });
        return true;
      }
      const back = new URL(record.redirect_uri);
      if (options.hostileAuthorizeError) {
        // The authorization server refuses, with an error_description that attacks the terminal.
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("error_description", HOSTILE_TEXT);
      } else if (
        q.get("response_type") !== "code" ||
        record.code_challenge_method !== "S256" ||
        !q.get("code_challenge")
      ) {
        back.searchParams.set("error", "invalid_request");
        back.searchParams.set("error_description", "PKCE with S256 is required");
      } else {
        const code = b64url(randomBytes(16));
        codes.set(code, { ...record, challenge: q.get("code_challenge") });
        back.searchParams.set("code", code);
      }
      const state = q.get("state");
      if (state !== null) back.searchParams.set("state", options.tamperState ? `${state}-tampered` : state);
      res.writeHead(302, { location: back.href });
      res.end();
      return true;
    }
    if (path === "/token" && req.method === "POST") {
      const params = new URLSearchParams(await readBody());
      const grantType = params.get("grant_type");
      const who = clientAuth(req, params, res);
      const entry = {
        grant_type: grantType,
        method: who?.method,
        alg: who?.alg,
        resource: params.get("resource"),
        scope: params.get("scope"),
      };
      stats.tokenRequests.push(entry);
      if (!who) return true;
      // DPoP (RFC 9449 §5): a proof makes the token bound to its key; a bad one fails the request.
      let jkt;
      if (dpop && req.headers.dpop !== undefined) {
        const proof = dpopProof(req.headers.dpop, {
          method: "POST",
          url: `${getOrigin()}/token`,
          nonce: options.dpopNonce ? nonces.as : undefined,
          seen: seenJtis,
          algs: dpopAlgs,
        });
        if (proof.nonce) {
          stats.dpop.asNonceChallenges++;
          json(
            res,
            400,
            { error: "use_dpop_nonce", error_description: "use the DPoP-Nonce" },
            { "dpop-nonce": nonces.as },
          );
          return true;
        }
        if (proof.error) {
          stats.dpop.rejected.push(`token: ${proof.error}`);
          reject(res, 400, "invalid_dpop_proof", proof.error);
          return true;
        }
        stats.dpop.tokenProofs++;
        jkt = proof.jkt;
      }
      const isPublic = who.method === "none";
      if (grantType === "authorization_code") {
        const grant = codes.get(params.get("code") ?? "");
        codes.delete(params.get("code") ?? "");
        const verifier = params.get("code_verifier") ?? "";
        if (!grant || grant.client_id !== who.client_id) {
          reject(res, 400, "invalid_grant", "unknown or used code");
        } else if (grant.redirect_uri !== params.get("redirect_uri")) {
          reject(res, 400, "invalid_grant", "redirect_uri does not match");
        } else if (b64url(createHash("sha256").update(verifier).digest()) !== grant.challenge) {
          reject(res, 400, "invalid_grant", "PKCE verification failed");
        } else if (grant.resource !== params.get("resource")) {
          reject(res, 400, "invalid_target", "resource does not match the authorization request");
        } else {
          issue(res, {
            scope: grant.scope,
            client_id: who.client_id,
            resource: grant.resource,
            refresh: true,
            jkt,
            public: isPublic,
          });
        }
        return true;
      }
      if (grantType === "refresh_token") {
        const grant = refreshTokens.get(params.get("refresh_token") ?? "");
        if (!grant || grant.client_id !== who.client_id) {
          reject(res, 400, "invalid_grant", "unknown refresh token");
          return true;
        }
        if (grant.jkt && grant.jkt !== jkt) {
          reject(res, 400, "invalid_grant", "the refresh token is bound to another DPoP key");
          return true;
        }
        stats.refreshes++;
        issue(res, { ...grant, refresh: false, jkt });
        return true;
      }
      if (grantType === "client_credentials") {
        if (who.method !== "private_key_jwt" && who.client_id !== options.ccClientId) {
          reject(res, 400, "unauthorized_client", "not a client_credentials client");
          return true;
        }
        issue(res, { scope: params.get("scope") ?? "", client_id: who.client_id, refresh: false, jkt });
        return true;
      }
      reject(res, 400, "unsupported_grant_type", String(grantType));
      return true;
    }
    if (path === "/admin/oauth") {
      json(res, 200, stats);
      return true;
    }
    if (path === "/admin/expire-tokens" && req.method === "POST") {
      const expired = accessTokens.size;
      accessTokens.clear();
      json(res, 200, { expired });
      return true;
    }
    if (path === "/admin/rotate-dpop-nonces" && req.method === "POST") {
      nonces.as = b64url(randomBytes(12));
      nonces.rs = b64url(randomBytes(12));
      json(res, 200, { ok: true });
      return true;
    }
    if (path === "/admin/revoke-refresh" && req.method === "POST") {
      refreshTokens.clear();
      json(res, 200, { ok: true });
      return true;
    }
    return false;
  }

  /** The 401/403 answer for a request to /mcp, or undefined when it may pass. */
  function check(req, message) {
    const header = req.headers.authorization ?? "";
    const scheme = header.startsWith("Bearer ") ? "Bearer" : header.startsWith("DPoP ") ? "DPoP" : "";
    const token = scheme ? header.slice(scheme.length + 1) : "";
    let granted = accessTokens.get(token);
    const metadataParam = options.noResourceMetadataHeader ? "" : `resource_metadata="${prmUrl()}"`;
    const challenge = (extra = "") => {
      const parts = [
        extra,
        metadataParam,
        options.challengeScope ? `scope="${options.challengeScope}"` : "",
      ].filter(Boolean);
      return `${rsDpop ? "DPoP" : "Bearer"}${parts.length ? ` ${parts.join(", ")}` : ""}`;
    };
    if (dpop && !rsDpop) {
      if (scheme === "DPoP") {
        stats.dpop.rejected.push("mcp: the DPoP scheme is not accepted here");
        granted = undefined;
      } else if (granted?.jkt) {
        stats.dpop.bearerWithBoundToken++;
      }
    } else if (granted && dpop) {
      // RFC 9449 §7: a bound token only with the DPoP scheme and a proof of its key; never as Bearer.
      if (granted.jkt && scheme !== "DPoP") {
        stats.dpop.bearerWithBoundToken++;
        granted = undefined;
      } else if (scheme === "DPoP") {
        const proof = dpopProof(req.headers.dpop, {
          method: req.method,
          url: resource(),
          accessToken: token,
          nonce: options.dpopNonce ? nonces.rs : undefined,
          seen: seenJtis,
          algs: dpopAlgs,
        });
        if (proof.nonce) {
          stats.dpop.rsNonceChallenges++;
          return {
            status: 401,
            error: "use_dpop_nonce",
            header: challenge(`error="use_dpop_nonce", algs="${dpopAlgs.join(" ")}"`),
            headers: { "dpop-nonce": nonces.rs },
          };
        }
        if (proof.error || proof.jkt !== granted.jkt) {
          stats.dpop.rejected.push(`mcp: ${proof.error ?? "the proof key is not the token's"}`);
          return {
            status: 401,
            error: "invalid_dpop_proof",
            header: challenge(`error="invalid_dpop_proof"`),
          };
        }
        stats.dpop.rsProofs++;
      }
    } else if (scheme === "DPoP") {
      granted = undefined;
    }
    if (!granted) return { status: 401, header: challenge() };
    const scopes = new Set(granted.scope.split(" "));
    if (
      options.stepUpTool &&
      message?.method === "tools/call" &&
      message.params?.name === options.stepUpTool &&
      !scopes.has(options.stepUpScope)
    ) {
      const needed = [...new Set([...scopes, options.stepUpScope])].filter(Boolean).join(" ");
      return {
        status: 403,
        header: `Bearer error="insufficient_scope", scope="${needed}"${metadataParam ? `, ${metadataParam}` : ""}`,
      };
    }
    return undefined;
  }

  return { handle, check, stats };
}
