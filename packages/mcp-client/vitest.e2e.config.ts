import { readFileSync } from "node:fs";
import { e2eConfig } from "@agentforge/build-config/vitest";
import { defineConfig } from "vitest/config";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

export default defineConfig({
  ...e2eConfig(),
  define: { __MCP_CLIENT_VERSION__: JSON.stringify(version) },
});
