import { readdirSync, readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { mcpConfigJsonSchema } from "../src/index.js";

const shipped = JSON.parse(readFileSync(new URL("../schema.json", import.meta.url), "utf8"));
const fixtures = new URL("../src/__fixtures__/", import.meta.url);

describe("schema.json", () => {
  it("is current (regenerate with `pnpm --filter @agentforge/mcp-config schema`)", () => {
    expect(shipped).toEqual(mcpConfigJsonSchema());
  });

  // Editors validate with the JSON Schema alone; it must agree with the parser on the structural rules.
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(shipped);
  const load = (name: string) => parse(readFileSync(new URL(name, fixtures), "utf8"));

  it("accepts the valid roster and our JSON form", () => {
    for (const name of ["valid-roster.yaml", "native.json"]) {
      expect(validate(load(name)), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it.each([
    "missing-command.yaml",
    "missing-url.yaml",
    "missing-transport.yaml",
    "unknown-transport.yaml",
    "auth-on-stdio.yaml",
    "command-on-http.yaml",
    "unknown-key.yaml",
    "name-with-dot.yaml",
    "name-with-space.yaml",
    "wrong-types.yaml",
    "literal-secret.yaml",
  ])("rejects %s", (name) => {
    expect(validate(load(name))).toBe(false);
  });

  it("covers every fixture in one of the lists above or the parser tests", () => {
    expect(readdirSync(fixtures).length).toBeGreaterThanOrEqual(20);
  });
});
