// Who may talk to the API, as for the example MCP servers: loopback by default; anything else only with
// a bearer token (AGENTFORGE_API_TOKEN), which every /api request must then carry. On loopback, Host and
// Origin headers must name the bound address (a DNS-rebinding guard). Requests a browser marks as coming from
// another site or origin (`Sec-Fetch-Site: cross-site | same-site`) are refused on /api, whatever the method.
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { UsageError } from "../shared/usage-error.js";
import { ApiError } from "./api-error.js";

/**
 * True for addresses only this machine can reach — the rule of `isLoopbackHost` in
 * @agentforge/example-servers, repeated here so the CLI does not load the example servers to start.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** The variable holding the API's bearer token. */
export const API_TOKEN_VARIABLE = "AGENTFORGE_API_TOKEN";
/** The variable listing accepted Host header values (behind a proxy). */
export const ALLOWED_HOSTS_VARIABLE = "AGENTFORGE_ALLOWED_HOSTS";

/** Refuse to serve anything but loopback without a token (a usage error: exit code 2). */
export function assertServable(host: string, token: string | undefined): void {
  if (!isLoopbackHost(host) && !token) {
    throw new UsageError(
      `refusing to serve on ${host} without a bearer token: set ${API_TOKEN_VARIABLE} (anything but loopback must be authenticated)`,
    );
  }
}

/** The Host header values accepted: the given list, else on loopback the bound address; else any. */
export function allowedHostsFor(
  host: string,
  port: number,
  configured: readonly string[] | undefined,
): Set<string> | undefined {
  if (configured && configured.length > 0) return new Set(configured.map((h) => h.toLowerCase()));
  if (!isLoopbackHost(host)) return undefined;
  const bare = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return new Set([
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `[::1]:${port}`,
    `${bare}:${port}`.toLowerCase(),
  ]);
}

/**
 * `Sec-Fetch-Site` values the API refuses. Browsers send the header on every request (fetch, `<img>`,
 * forms, navigation); `cross-site` is another site, and `same-site` is another origin of the same site —
 * for `localhost` that is any other port, e.g. a dev server — so both are refused. `same-origin` (the /mcp
 * page itself), `none` (typed in the address bar) and no header (curl, scripts) pass.
 */
export const REFUSED_FETCH_SITES: ReadonlySet<string> = new Set(["cross-site", "same-site"]);

/** Whether a request's `Sec-Fetch-Site` header marks it as coming from another site or origin. */
export function isCrossSiteRequest(secFetchSite: string | undefined): boolean {
  return secFetchSite !== undefined && REFUSED_FETCH_SITES.has(secFetchSite.trim().toLowerCase());
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** The guard middleware; `allowedHosts` is read per request (the port is known only after listen). */
export function requestGuard(options: {
  token: string | undefined;
  allowedHosts: () => Set<string> | undefined;
}): MiddlewareHandler {
  const tokenDigest = options.token ? digest(options.token) : undefined;
  return async (c, next) => {
    const allowed = options.allowedHosts();
    if (allowed) {
      const host = (c.req.header("host") ?? "").toLowerCase();
      if (!allowed.has(host)) throw new ApiError(403, "FORBIDDEN_HOST", "Host header not allowed");
      const origin = c.req.header("origin");
      if (origin) {
        let originHost = "";
        try {
          originHost = new URL(origin).host.toLowerCase();
        } catch {
          // an unparsable Origin is refused
        }
        if (!allowed.has(originHost)) throw new ApiError(403, "FORBIDDEN_ORIGIN", "Origin not allowed");
      }
    }
    if (c.req.path.startsWith("/api/") && isCrossSiteRequest(c.req.header("sec-fetch-site"))) {
      throw new ApiError(
        403,
        "FORBIDDEN_CROSS_SITE",
        "cross-site requests to the API are refused (Sec-Fetch-Site); use the /mcp page of this server, or a client that is not a browser",
      );
    }
    if (tokenDigest && c.req.path.startsWith("/api/")) {
      const match = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "");
      if (!match?.[1] || !timingSafeEqual(digest(match[1]), tokenDigest)) {
        throw new ApiError(
          401,
          "UNAUTHORIZED",
          `a valid bearer token is required (Authorization: Bearer <the value of ${API_TOKEN_VARIABLE}>)`,
          {},
          { "WWW-Authenticate": 'Bearer realm="agentforge"' },
        );
      }
    }
    await next();
  };
}
