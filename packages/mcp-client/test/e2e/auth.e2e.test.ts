// OAuth (client_credentials against a loopback authorization server, and a pre-issued token) and mTLS
// (certificates made with openssl into a temp folder) against real HTTPS/HTTP servers on 127.0.0.1.
import { rmSync } from "node:fs";
import {
  createTestCertificates,
  httpTestServer,
  type RunningHttpTestServer,
  startHttpTestServer,
  type TestCertificates,
} from "@agentforge/test-servers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanup, manager, onCleanup, rejectionOf, textOf } from "./helpers.js";

afterEach(cleanup);

async function server(options: Parameters<typeof startHttpTestServer>[0]): Promise<RunningHttpTestServer> {
  const running = await startHttpTestServer(options);
  onCleanup(() => running.stop());
  return running;
}

const CLIENT_SECRET = "oauth-client-secret-value";

describe("OAuth", () => {
  it("client_credentials: gets a token from the authorization server and connects", async () => {
    const running = await server({
      oauthClientId: "agent",
      oauthClientSecretEnv: "SECRET",
      env: { SECRET: CLIENT_SECRET },
    });
    const m = manager(
      [
        httpTestServer("oauth", running.url, {
          auth: {
            type: "oauth",
            grant: "client_credentials",
            clientIdEnvVar: "OAUTH_ID",
            clientSecretEnvVar: "OAUTH_SECRET",
            issuer: running.origin,
          },
        }),
      ],
      { env: { OAUTH_ID: "agent", OAUTH_SECRET: CLIENT_SECRET } },
    );
    expect(textOf(await m.callTool("oauth", "echo", { text: "authorized" }))).toBe("authorized");
    expect(textOf(await m.callTool("oauth", "add", { a: 1, b: 1 }))).toBe("2");
  });

  it("client_credentials with a wrong secret → AUTH_FAILED, without the secret in the message", async () => {
    const running = await server({
      oauthClientId: "agent",
      oauthClientSecretEnv: "SECRET",
      env: { SECRET: CLIENT_SECRET },
    });
    const wrongSecret = "wrong-client-secret-canary";
    const m = manager(
      [
        httpTestServer("oauth", running.url, {
          auth: {
            type: "oauth",
            grant: "client_credentials",
            clientIdEnvVar: "OAUTH_ID",
            clientSecretEnvVar: "OAUTH_SECRET",
            issuer: running.origin,
          },
        }),
        httpTestServer("nosecret", running.url, {
          auth: {
            type: "oauth",
            grant: "client_credentials",
            clientIdEnvVar: "OAUTH_ID",
            clientSecretEnvVar: "UNSET_SECRET_VAR",
            issuer: running.origin,
          },
        }),
      ],
      { env: { OAUTH_ID: "agent", OAUTH_SECRET: wrongSecret } },
    );
    const error = await rejectionOf(m.callTool("oauth", "echo", { text: "x" }));
    expect(error).toMatchObject({ code: "AUTH_FAILED", serverName: "oauth" });
    expect(error.message).not.toContain(wrongSecret);
    const unset = await rejectionOf(m.callTool("nosecret", "echo", { text: "x" }));
    expect(unset).toMatchObject({ code: "SERVER_MISCONFIGURED" });
    expect(unset.message).toContain("UNSET_SECRET_VAR");
  });

  it("access_token: presents a pre-issued token; a rejected one → HTTP_UNAUTHORIZED naming the variable", async () => {
    const running = await server({ tokenEnv: "TOKEN", env: { TOKEN: "pre-issued-access-token" } });
    const m = manager(
      [
        httpTestServer("token", running.url, {
          auth: { type: "oauth", grant: "access_token", credentialEnvVar: "ACCESS_TOKEN" },
        }),
        httpTestServer("expired", running.url, {
          auth: { type: "oauth", grant: "access_token", credentialEnvVar: "OLD_TOKEN" },
        }),
      ],
      { env: { ACCESS_TOKEN: "pre-issued-access-token", OLD_TOKEN: "expired-access-token" } },
    );
    expect(textOf(await m.callTool("token", "echo", { text: "ok" }))).toBe("ok");
    const error = await rejectionOf(m.callTool("expired", "echo", { text: "x" }));
    expect(error).toMatchObject({ code: "HTTP_UNAUTHORIZED", httpStatus: 401 });
    expect(error.message).toContain("OLD_TOKEN");
    expect(error.message).not.toContain("expired-access-token");
  });
});

describe("mTLS", () => {
  let certs: TestCertificates;
  let running: RunningHttpTestServer;

  beforeAll(async () => {
    certs = createTestCertificates();
    running = await startHttpTestServer({
      tlsCert: certs.serverCert,
      tlsKey: certs.serverKey,
      tlsCa: certs.caCert,
      requireClientCert: true,
    });
  });

  afterAll(async () => {
    await running?.stop();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  const mtls = (keyVar = "CLIENT_KEY", extra: Record<string, string> = {}) =>
    httpTestServer("secure", running.url, {
      auth: {
        type: "mtls",
        certFileEnvVar: "CLIENT_CERT",
        keyFileEnvVar: keyVar,
        caFileEnvVar: "CA_FILE",
        ...extra,
      },
    });

  it("connects with the client certificate, key and CA named by env vars", async () => {
    const m = manager([mtls()], {
      env: { CLIENT_CERT: certs.clientCert, CLIENT_KEY: certs.clientKey, CA_FILE: certs.caCert },
    });
    expect(running.url.startsWith("https://127.0.0.1:")).toBe(true);
    expect(textOf(await m.callTool("secure", "echo", { text: "mutual" }))).toBe("mutual");
  });

  it("decrypts a passphrase-protected key", async () => {
    const m = manager([mtls("ENCRYPTED_KEY", { passphraseEnvVar: "KEY_PASSPHRASE" })], {
      env: {
        CLIENT_CERT: certs.clientCert,
        ENCRYPTED_KEY: certs.clientKeyEncrypted,
        CA_FILE: certs.caCert,
        KEY_PASSPHRASE: certs.passphrase,
      },
    });
    expect(textOf(await m.callTool("secure", "echo", { text: "encrypted key" }))).toBe("encrypted key");
  });

  it("a certificate the server refuses, or an untrusted server → HTTP_TLS", async () => {
    const m = manager(
      [
        // The server certificate is not valid for client authentication.
        httpTestServer("refused", running.url, {
          auth: {
            type: "mtls",
            certFileEnvVar: "SERVER_CERT",
            keyFileEnvVar: "SERVER_KEY",
            caFileEnvVar: "CA_FILE",
          },
        }),
        // No CA configured: the test CA is not trusted.
        httpTestServer("untrusted", running.url),
      ],
      { env: { SERVER_CERT: certs.serverCert, SERVER_KEY: certs.serverKey, CA_FILE: certs.caCert } },
    );
    const refused = await rejectionOf(m.callTool("refused", "echo", { text: "x" }));
    expect(refused).toMatchObject({ code: "HTTP_TLS" });
    expect(refused.message).toContain("refused the client certificate");
    const untrusted = await rejectionOf(m.callTool("untrusted", "echo", { text: "x" }));
    expect(untrusted).toMatchObject({ code: "HTTP_TLS" });
    expect(untrusted.message).toContain("SELF_SIGNED_CERT_IN_CHAIN");
  });

  it("an unset or unreadable certificate file → SERVER_MISCONFIGURED naming the variable", async () => {
    const m = manager(
      [
        mtls(),
        httpTestServer("unreadable", running.url, {
          auth: { type: "mtls", certFileEnvVar: "MISSING_FILE", keyFileEnvVar: "CLIENT_KEY" },
        }),
      ],
      { env: { CLIENT_KEY: certs.clientKey, MISSING_FILE: "/no/such/cert.pem" } },
    );
    const unset = await rejectionOf(m.callTool("secure", "echo"));
    expect(unset).toMatchObject({ code: "SERVER_MISCONFIGURED" });
    expect(unset.message).toContain("CLIENT_CERT");
    const unreadable = await rejectionOf(m.callTool("unreadable", "echo"));
    expect(unreadable).toMatchObject({ code: "SERVER_MISCONFIGURED" });
    expect(unreadable.message).toContain("MISSING_FILE");
    expect(unreadable.message).toContain("ENOENT");
  });
});
