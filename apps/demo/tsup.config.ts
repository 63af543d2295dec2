import { defineConfig } from "tsup";

// The app is run, not imported: one ESM entry per executable, no declarations.
export default defineConfig({
  entry: { cli: "src/cli.ts", "playwright-launcher": "src/playwright-launcher.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  clean: true,
  sourcemap: true,
  banner: { js: "#!/usr/bin/env node" },
});
