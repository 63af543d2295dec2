// The built root entry must not load a framework: importing the executor or the toolkit never pulls in
// @langchain/core or the AI SDK. Checked in a child Node process whose module resolution refuses them
// (ESM: a resolve hook; CJS: Module._resolveFilename), so any static or eager import fails the load.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../../dist/", import.meta.url));
const FORBIDDEN = String.raw`/^(@langchain\/|ai$|ai\/|@ai-sdk\/)/`;

const esmHook = `export async function resolve(specifier, context, next) {
  if (${FORBIDDEN}.test(specifier)) throw new Error("FORBIDDEN import of " + specifier);
  return next(specifier, context);
}`;

function loadWithFrameworksForbidden(entry: string): Promise<{ code: number; output: string }> {
  const file = `${dist}${entry}`;
  const script = entry.endsWith(".cjs")
    ? `const Module = require("node:module");
       const original = Module._resolveFilename;
       Module._resolveFilename = function (request, ...rest) {
         if (${FORBIDDEN}.test(request)) throw new Error("FORBIDDEN require of " + request);
         return original.call(this, request, ...rest);
       };
       const api = require(${JSON.stringify(file)});
       console.log("loaded " + Object.keys(api).length);`
    : `import { register } from "node:module";
       import { pathToFileURL } from "node:url";
       register("data:text/javascript," + encodeURIComponent(${JSON.stringify(esmHook)}));
       const api = await import(pathToFileURL(${JSON.stringify(file)}).href);
       console.log("loaded " + Object.keys(api).length);`;
  const args = entry.endsWith(".cjs") ? ["-e", script] : ["--input-type=module", "-e", script];
  return new Promise((done) => {
    execFile(process.execPath, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) || 1 : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe("entry points (built dist/)", () => {
  it("dist/ exists (run `pnpm build` first)", () => {
    expect(existsSync(`${dist}index.js`)).toBe(true);
  });

  it.each(["index.js", "index.cjs", "node.js", "node.cjs"])(
    "%s loads with @langchain/* and ai unresolvable",
    async (entry) => {
      const { code, output } = await loadWithFrameworksForbidden(entry);
      expect(output).toMatch(/^loaded \d+/);
      expect(code).toBe(0);
    },
    60_000,
  );

  // The check can fail: the framework entries are refused under the same rules.
  it.each(["langchain.js", "langchain.cjs", "ai-sdk.js", "ai-sdk.cjs"])(
    "%s needs its framework (the check catches it)",
    async (entry) => {
      const { code, output } = await loadWithFrameworksForbidden(entry);
      expect(code).not.toBe(0);
      expect(output).toContain("FORBIDDEN");
    },
    60_000,
  );
});
