import { libraryConfig } from "@agentforge/build-config/tsup";
import { defineConfig, type Options } from "tsup";

/** A bin build: single-file ESM with a shebang and a `require` for bundled CommonJS code. */
function binConfig(
  entry: Record<string, string>,
  bundling: Pick<Options, "noExternal" | "external">,
): Options {
  return {
    entry,
    format: ["esm"],
    target: "node20",
    platform: "node",
    outDir: "dist",
    clean: false,
    sourcemap: true,
    // Minified: V8 compiles half the source at every start (cold start ~25% faster); sourcemaps map it back.
    minify: true,
    splitting: false,
    ...bundling,
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  };
}

export default defineConfig([
  // The library: createXServer() factories for embedding; the SDK stays a dependency.
  libraryConfig({ index: "src/index.ts" }, { clean: false }),
  // The bins: each one bundled into a single ESM file, so a cold start loads one module.
  binConfig(
    {
      "bin/local-tools": "src/bin/local-tools.ts",
      "bin/filesystem": "src/bin/filesystem.ts",
      "bin/sequential-thinking": "src/bin/sequential-thinking.ts",
    },
    { noExternal: [/.*/] },
  ),
  // The postgres bin bundles the SDK and zod like the others, but keeps pg and the WebAssembly packages
  // external: PGlite and libpg-query load their .wasm/.data files next to their own modules, and PGlite
  // is started in a worker thread by its resolved path.
  binConfig(
    { "bin/postgres": "src/bin/postgres.ts" },
    {
      noExternal: [/^@modelcontextprotocol\/sdk(\/|$)/, /^zod(\/|$)/],
      external: ["pg", "libpg-query", "@electric-sql/pglite", "@electric-sql/pglite-socket"],
    },
  ),
]);
