// A hostile authorization server on loopback: metadata far over the 1 MiB bound, and a token endpoint
// over plain http on another host. The client refuses both with a typed error, and neither the
// client secret nor its Basic form reaches the message.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { httpTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { MCPConnectionError } from "../../src/errors.js";
import { cleanup, manager, onCleanup, rejectionOf } from "./helpers.js";

afterEach(cleanup);

const SECRET = "hostile-as-client-secret-0123";

async function hostileServer(metadata: (origin: string) => { body: string; chunked: boolean }) {
  let sentMetadataBytes = 0;
  let tokenRequests = 0;
  const server = createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    req.resume();
    if (req.url === "/mcp") {
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      });
      res.end();
    } else if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [origin] }));
    } else if (req.url?.startsWith("/.well-known/")) {
      const { body, chunked } = metadata(origin);
      res.writeHead(200, {
        "content-type": "application/json",
        ...(chunked ? {} : { "content-length": String(Buffer.byteLength(body)) }),
      });
      // Written in pieces: a client that stops reading stops the rest.
      const piece = 64 * 1024;
      let at = 0;
      const write = () => {
        while (at < body.length) {
          const chunk = body.slice(at, at + piece);
          at += piece;
          sentMetadataBytes += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", write);
            return;
          }
        }
        res.end();
      };
      res.on("error", () => {});
      write();
    } else if (req.url === "/token") {
      tokenRequests++;
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid_client" }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  onCleanup(() => server.closeAllConnections());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, sent: () => sentMetadataBytes, tokenRequests: () => tokenRequests };
}

function clientCredentials(name: string, url: string) {
  return httpTestServer(name, url, {
    auth: {
      type: "oauth",
      grant: "client_credentials",
      clientIdEnvVar: "HOSTILE_CID",
      clientSecretEnvVar: "HOSTILE_CSECRET",
    },
    connectionTimeout: 30,
  });
}

const env = { HOSTILE_CID: "hostile-client", HOSTILE_CSECRET: SECRET };

describe("a hostile authorization server", { timeout: 120_000 }, () => {
  for (const chunked of [false, true]) {
    it(`metadata of 40 MB (${chunked ? "streamed" : "declared"}) is refused at 1 MiB, typed`, async () => {
      const big = (origin: string) => ({
        chunked,
        body: JSON.stringify({
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          padding: "x".repeat(40 * 1024 * 1024),
        }),
      });
      const server = await hostileServer(big);
      const m = manager([clientCredentials("big", server.url)], { env });
      const error = await rejectionOf(m.callTool("big", "echo", { text: "x" }));
      expect(MCPConnectionError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/larger than 1048576 bytes/);
      expect(error.message).not.toContain(SECRET);
      expect(server.tokenRequests()).toBe(0);
      // The rest of the 40 MB was never read (the server stopped at back-pressure).
      expect(server.sent()).toBeLessThan(20 * 1024 * 1024);
    });
  }

  it("a token endpoint over plain http on another host is never sent the credentials", async () => {
    const server = await hostileServer((origin) => ({
      chunked: false,
      body: JSON.stringify({
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: "http://token.example.invalid/token",
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
      }),
    }));
    const m = manager([clientCredentials("insecure", server.url)], { env });
    const error = await rejectionOf(m.callTool("insecure", "echo", { text: "x" }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toMatch(/https|insecure|loopback/i);
  });
});
