import { readFileSync } from "node:fs";
import { libraryConfig } from "@agentforge/build-config/tsup";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

// The version clientInfo announces comes from package.json at build time (src/internal/shared/package-version.ts).
export default defineConfig(
  libraryConfig({ index: "src/index.ts" }, { define: { __MCP_CLIENT_VERSION__: JSON.stringify(version) } }),
);
