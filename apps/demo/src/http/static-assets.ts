// The /mcp page: plain HTML, CSS and JS files in src/http/public, read once at start and served from
// memory (no front-end build chain). Found next to this module (source) or from dist/cli.js (bundle).
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** One file of the page. */
export interface StaticAsset {
  body: string;
  contentType: string;
  etag: string;
}

const FILES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "mcp.js": "text/javascript; charset=utf-8",
  "mcp.css": "text/css; charset=utf-8",
};

function publicDir(): string {
  const candidates = [new URL("./public/", import.meta.url), new URL("../src/http/public/", import.meta.url)];
  for (const candidate of candidates) {
    const dir = fileURLToPath(candidate);
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error(
    `the /mcp page files are missing (looked in ${candidates.map((c) => fileURLToPath(c)).join(" and ")})`,
  );
}

/** The page's files by name (`index.html`, `mcp.js`, `mcp.css`). */
export function loadStaticAssets(): Map<string, StaticAsset> {
  const dir = publicDir();
  const assets = new Map<string, StaticAsset>();
  for (const [name, contentType] of Object.entries(FILES)) {
    const body = readFileSync(`${dir}${name}`, "utf8");
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 16)}"`;
    assets.set(name, { body, contentType, etag });
  }
  return assets;
}
