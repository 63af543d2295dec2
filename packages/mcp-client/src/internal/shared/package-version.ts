/**
 * This package's version, from its package.json: the build (tsup `define`) and the test runs (vitest
 * `define`) replace `__MCP_CLIENT_VERSION__` with it, so it never drifts from the published version.
 * Run from source without either (e.g. through tsx), it reads "0.0.0-source".
 */
declare const __MCP_CLIENT_VERSION__: string | undefined;

export const PACKAGE_VERSION: string =
  typeof __MCP_CLIENT_VERSION__ === "string" ? __MCP_CLIENT_VERSION__ : "0.0.0-source";
