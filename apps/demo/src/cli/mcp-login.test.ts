import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningHttpTestServer, startHttpTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FileTokenStore } from "../app/file-token-store.js";
import { mcpLoginCommand } from "./mcp-login.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-login-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("FileTokenStore", () => {
  it("writes one 0600 file per server atomically, reads it back and deletes it", () => {
    const store = new FileTokenStore(join(temp(), "oauth"));
    const record = {
      url: "https://x.example/mcp",
      tokens: { access_token: "a-token", token_type: "Bearer" },
    };
    store.set("github", record);
    store.set("github", { ...record, tokens: { access_token: "b-token", token_type: "Bearer" } });
    expect(statSync(store.file("github")).mode & 0o777).toBe(0o600);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(store.dir)).toEqual(["github.json"]);
    expect(store.get("github")?.tokens?.access_token).toBe("b-token");
    store.delete("github");
    expect(store.get("github")).toBeUndefined();
    expect(() => store.file("../etc")).toThrow(/not a server name/);
  });
});

describe("FileTokenStore on a folder it did not make", () => {
  it("narrows an existing 0777 folder and a 0644 token file to 0700 / 0600 before using them", () => {
    const dir = join(temp(), "oauth");
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    writeFileSync(join(dir, "github.json"), JSON.stringify({ url: "https://x.example/mcp" }));
    chmodSync(join(dir, "github.json"), 0o644);
    const store = new FileTokenStore(dir);
    expect(store.get("github")?.url).toBe("https://x.example/mcp");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "github.json")).mode & 0o777).toBe(0o600);
    chmodSync(dir, 0o755);
    store.set("gitlab", { url: "https://y.example/mcp" });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("refuses a folder that is a symlink (TOKEN_FOLDER_UNSAFE), reading nothing and writing nothing", () => {
    const root = temp();
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(root, "oauth"));
    const store = new FileTokenStore(join(root, "oauth"));
    expect(() => store.set("github", { url: "https://x.example/mcp" })).toThrow(
      expect.objectContaining({ code: "TOKEN_FOLDER_UNSAFE" }),
    );
    expect(() => store.get("github")).toThrow(/is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("says so when a stored login cannot be read, and counts it as not logged in", () => {
    const warnings: string[] = [];
    const dir = join(temp(), "oauth");
    const store = new FileTokenStore(dir, { warn: (w) => warnings.push(`${w.code}: ${w.message}`) });
    store.set("github", { url: "https://x.example/mcp" });
    writeFileSync(store.file("github"), "{ cut short");
    expect(store.get("github")).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^TOKEN_FILE_UNREADABLE: the OAuth login of "github"/)]);
  });
});

/**
 * An authorization server + MCP server (dynamic registration on), a roster naming it `remote` with
 * authorization-code OAuth, a state folder, and what the command writes to stdout.
 */
async function loginSetup(options: { dpop?: boolean } = {}) {
  const running: RunningHttpTestServer = await startHttpTestServer({
    authServer: true,
    dcr: true,
    ...options,
  });
  cleanups.push(() => running.stop());
  const dir = temp();
  const config = join(dir, "mcp_servers.yaml");
  writeFileSync(
    config,
    `servers:\n  - name: remote\n    enabled: true\n    transport: http\n    url: ${running.url}\n    auth: { type: oauth, grant: authorization_code }\n`,
  );
  const out: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  return { dir, config, out };
}

describe("agentforge mcp login / logout", () => {
  it("logs in through the authorize callback, keeps the login in <state-dir>/oauth, and logs out", async () => {
    const { dir, config, out } = await loginSetup();
    let opened = 0;
    const code = await mcpLoginCommand(
      ["login", "remote", "--config", config, "--state-dir", dir, "--json"],
      {
        authorize: async (url) => {
          opened++;
          await (await fetch(url)).body?.cancel();
        },
      },
    );
    expect(code).toBe(0);
    expect(opened).toBe(1);
    const file = join(dir, "oauth", "remote.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(file, "utf8"));
    expect(record.tokens.access_token).toBeTruthy();
    expect(JSON.parse(out.join(""))).toMatchObject({ serverName: "remote", loggedIn: true });
    expect(out.join("")).not.toContain(record.tokens.access_token);

    out.length = 0;
    expect(
      await mcpLoginCommand(["logout", "remote", "--config", config, "--state-dir", dir, "--json"]),
    ).toBe(0);
    expect(JSON.parse(out.join(""))).toEqual({ serverName: "remote", loggedOut: true });
    expect(readdirSync(join(dir, "oauth"))).toEqual([]);
  }, 60_000);

  it("keeps a DPoP login's key in the same 0600 file as the tokens bound to it, shown nowhere", async () => {
    const { dir, config, out } = await loginSetup({ dpop: true });
    const code = await mcpLoginCommand(
      ["login", "remote", "--config", config, "--state-dir", dir, "--json"],
      { authorize: async (url) => void (await (await fetch(url)).body?.cancel()) },
    );
    expect(code).toBe(0);
    const file = join(dir, "oauth", "remote.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(file, "utf8"));
    expect(record.tokens.token_type).toMatch(/^dpop$/i);
    expect(record.dpopKey.privateJwk.d).toBeTruthy();
    const shown = out.join("");
    expect(shown).not.toContain(record.tokens.access_token);
    expect(shown).not.toContain(record.dpopKey.privateJwk.d);
  }, 60_000);
});
