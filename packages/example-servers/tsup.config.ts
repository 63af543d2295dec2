import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { libraryConfig } from "@agentforge/build-config/tsup";
import { defineConfig, type Options } from "tsup";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

/** Shared by both bin builds: ESM for Node 20, minified (sourcemaps map it back), a shebang and a `require`. */
const binBase: Options = {
  format: ["esm"],
  target: "node20",
  platform: "node",
  outDir: "dist",
  clean: false,
  sourcemap: true,
  minify: true,
  // The SDK (server, core, the node:http adapter and the hono packages it converts requests with) and
  // zod (all MIT) are bundled; pg and the WebAssembly packages stay external: PGlite and libpg-query
  // load their .wasm/.data files next to their own modules, and PGlite is started in a worker thread by
  // its resolved path.
  noExternal: [
    /^@modelcontextprotocol\/(server|core|node)(\/|$)/,
    /^zod(\/|$)/,
    /^hono(\/|$)/,
    /^@hono\/node-server(\/|$)/,
  ],
  external: ["pg", "libpg-query", "@electric-sql/pglite", "@electric-sql/pglite-socket"],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
};

/**
 * What the bins load on first need (the first message the stdio front does not answer, or --http):
 * `dist/bin/lazy/<name>.js`, split into shared chunks so that each module (the SDK above all) exists
 * once. Only a bin's `import()` of these sources is allowed; each becomes `import("./lazy/<name>.js")`.
 */
const LAZY: Record<string, string> = {
  "local-tools": "src/local-tools/create-local-tools-server.ts",
  "sequential-thinking": "src/sequential-thinking/create-sequential-thinking-server.ts",
  filesystem: "src/filesystem/create-filesystem-server.ts",
  sandbox: "src/filesystem/sandbox.ts",
  postgres: "src/postgres/create-postgres-server.ts",
  "open-postgres-database": "src/postgres/open-postgres-database.ts",
  "serve-http": "src/serve-http.ts",
  "serve-stdio": "src/serve-stdio.ts",
  "sdk-stdio": "src/internal/sdk-stdio.ts",
};

/** The bins' dynamic imports of LAZY sources → external `./lazy/<name>.js`; any other `import()` fails. */
const lazyImports: Plugin = {
  name: "agentforge-lazy-imports",
  setup(build) {
    const byFile = new Map(Object.entries(LAZY).map(([name, file]) => [resolve(file), name]));
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      const file = resolve(dirname(args.importer), args.path).replace(/\.js$/, ".ts");
      const name = byFile.get(file);
      if (!name)
        return { errors: [{ text: `import("${args.path}") is not a lazy module of the bins (LAZY)` }] };
      return { path: `./lazy/${name}.js`, external: true };
    });
  },
};

/** The `type` of the `.js` files under dist/bin (CommonJS bins) and dist/bin/lazy (ESM), for Node.js. */
async function writeTypeMarkers(): Promise<void> {
  await mkdir("dist/bin/lazy", { recursive: true });
  await writeFile("dist/bin/package.json", `${JSON.stringify({ type: "commonjs" })}\n`);
  await writeFile("dist/bin/lazy/package.json", `${JSON.stringify({ type: "module" })}\n`);
}

/**
 * The bins: each `dist/bin/<name>.js` is one small file (the command line, the stdio front and that
 * server's snapshot), so a stdio cold start compiles a few kilobytes instead of 800 kB; the SDK, zod and
 * the tools are the lazy modules above. A module both sides bundle (Sandbox, the option checks) exists
 * twice: no object of the bin's copy is handed to the lazy side.
 */
const bins: Options = {
  ...binBase,
  // CommonJS: Node.js starts a CommonJS main without setting up its ES module loader, which is most of
  // what separates a bin's first reply from a bare `node` process. The bins' `import()` of the lazy
  // modules stays an `import()`. `dist/bin/package.json` says `.js` is CommonJS here, and
  // `dist/bin/lazy/package.json` that it is ESM again below (see writeTypeMarkers).
  format: ["cjs"],
  outExtension: () => ({ js: ".js" }),
  banner: { js: "#!/usr/bin/env node" },
  onSuccess: async () => writeTypeMarkers(),
  entry: {
    "bin/local-tools": "src/bin/local-tools.ts",
    "bin/filesystem": "src/bin/filesystem.ts",
    "bin/sequential-thinking": "src/bin/sequential-thinking.ts",
    "bin/postgres": "src/bin/postgres.ts",
  },
  splitting: false,
  esbuildPlugins: [lazyImports],
};

const lazy: Options = {
  ...binBase,
  entry: Object.fromEntries(Object.entries(LAZY).map(([name, file]) => [`bin/lazy/${name}`, file])),
  splitting: true,
  esbuildOptions(options) {
    options.chunkNames = "bin/lazy/chunks/[name]-[hash]";
  },
};

export default defineConfig([
  // The library: createXServer() factories for embedding; the SDK stays a dependency.
  libraryConfig({ index: "src/index.ts" }, { clean: false }),
  bins,
  lazy,
]);
