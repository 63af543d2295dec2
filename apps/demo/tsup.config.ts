import { defineConfig } from "tsup";

// The app is run, not imported: one ESM entry per executable, no declarations.
export default defineConfig({
  entry: { cli: "src/cli.ts", "playwright-launcher": "src/playwright-launcher.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  // Each command is loaded with a dynamic import() from cli.ts; splitting turns those into separate chunks
  // (dist/*-HASH.js, next to cli.js so import.meta.url-relative paths still resolve): `--help` loads no
  // dependency at all, and each command only what it needs (LangChain, Hono... only for docs and serve).
  splitting: true,
  clean: true,
  sourcemap: true,
  banner: { js: "#!/usr/bin/env node" },
});
