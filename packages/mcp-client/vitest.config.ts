import { readFileSync } from "node:fs";
import { unitConfig } from "@agentforge/build-config/vitest";
import { defineConfig } from "vitest/config";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

export default defineConfig({
  ...unitConfig({ include: ["src/**/*.test.ts", "test/*.test.ts", "test/contract/**/*.test.ts"] }),
  define: { __MCP_CLIENT_VERSION__: JSON.stringify(version) },
});
