import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MCPConfigError, parseMCPConfig, resolvePlaceholders } from "../src/index.js";
import { loadMCPConfig, loadMCPServerConfigs } from "../src/node.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loadError(path: string): Promise<MCPConfigError> {
  try {
    await loadMCPConfig(path);
  } catch (error) {
    if (MCPConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`${path} loaded without error`);
}

describe("loadMCPConfig", () => {
  it("loads YAML and sets CONFIG_DIR to the file's folder", async () => {
    const file = join(dir, "mcp_servers.yaml");
    writeFileSync(
      file,
      'servers:\n  - {name: a, enabled: true, transport: stdio, command: "${NODE}", args: ["${CONFIG_DIR}/s.js"]}\n',
    );
    const [server] = await loadMCPServerConfigs(file);
    if (server?.transport !== "stdio") throw new Error("expected stdio");
    expect(server.configDir).toBe(dir);
    expect(resolvePlaceholders(server).args).toEqual([join(dir, "s.js")]);
  });

  it("loads a desktop-client JSON file", async () => {
    const file = join(dir, "claude_desktop_config.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { files: { command: "npx", args: ["x"] } } }));
    const config = await loadMCPConfig(file);
    expect(config.format).toBe("mcpServers");
    expect(config.source).toBe(file);
  });

  it("a missing file → CONFIG_NOT_FOUND naming the path", async () => {
    const error = await loadError(join(dir, "nope.yaml"));
    expect(error.code).toBe("CONFIG_NOT_FOUND");
    expect(error.message).toBe(`Config file ${join(dir, "nope.yaml")} does not exist`);
  });

  it("a directory → CONFIG_UNREADABLE", async () => {
    const sub = join(dir, "a-folder");
    mkdirSync(sub);
    const error = await loadError(sub);
    expect(error.code).toBe("CONFIG_UNREADABLE");
    expect(error.message).toMatch(/is a directory; expected a YAML or JSON file/);
  });

  it("a 10 MB file → CONFIG_TOO_LARGE without reading it", async () => {
    const file = join(dir, "huge.yaml");
    writeFileSync(file, Buffer.alloc(10 * 1024 * 1024, "#"));
    const error = await loadError(file);
    expect(error.code).toBe("CONFIG_TOO_LARGE");
    expect(error.message).toMatch(/10485760 bytes, over the limit of 1048576 bytes/);
  });

  it("errors in a file name the file with line and column", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "servers:\n  - name: x\n    transport: stdio\n");
    const error = await loadError(file);
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain(`${file}:\n  - line 2, column 5: servers[0].command:`);
  });

  it("an unreadable file → CONFIG_UNREADABLE", async () => {
    if (process.getuid?.() === 0) return; // root reads everything; nothing to test
    const file = join(dir, "locked.yaml");
    writeFileSync(file, "servers: []\n", { mode: 0o000 });
    expect((await loadError(file)).code).toBe("CONFIG_UNREADABLE");
  });
});

describe("loadMCPConfig: the fast path and the schema path agree", () => {
  const fixtures = new URL("../src/__fixtures__/", import.meta.url);
  const copy = (name: string) => {
    const file = join(dir, name);
    writeFileSync(file, readFileSync(new URL(name, fixtures)));
    return file;
  };

  it.each(["valid-roster.yaml", "native.json", "resource-and-prompt-grants.yaml", "vscode-mcp.json"])(
    "%s: the same config as parseMCPConfig (oauth entries go through the schema)",
    async (name) => {
      const file = copy(name);
      expect(await loadMCPConfig(file)).toEqual(
        parseMCPConfig(readFileSync(file, "utf8"), { source: file, configDir: dir }),
      );
    },
  );

  it.each(["wrong-types.yaml", "duplicate-names.yaml", "bad-resource-grants.yaml", "oauth-incomplete.yaml"])(
    "%s: the same error as parseMCPConfig (the schema is loaded for it)",
    async (name) => {
      const file = copy(name);
      const loaded = await loadError(file);
      let parsed: unknown;
      try {
        parseMCPConfig(readFileSync(file, "utf8"), { source: file, configDir: dir });
      } catch (error) {
        parsed = error;
      }
      if (!MCPConfigError.isInstance(parsed)) throw new Error("expected an MCPConfigError");
      expect(loaded.message).toBe(parsed.message);
      expect(loaded.issues).toEqual(parsed.issues);
    },
  );
});
