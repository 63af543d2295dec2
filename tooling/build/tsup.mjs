// The one tsup setup every publishable package uses: ESM + CJS + .d.ts/.d.cts, sourcemaps, Node 20.
/** @param {Record<string, string>} entry  output name -> source file, one per `exports` path */
export function libraryConfig(entry, overrides = {}) {
  return {
    entry,
    format: ["esm", "cjs"],
    target: "node20",
    platform: "node",
    clean: true,
    sourcemap: true,
    splitting: true,
    treeshake: true,
    // TypeScript 6 deprecates the baseUrl that tsup's dts step injects (TOOLCHAIN.md pitfall 6).
    dts: { compilerOptions: { ignoreDeprecations: "6.0" } },
    ...overrides,
  };
}
