import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";

describe("public API", () => {
  it("exports exactly these names (a change here needs a changeset)", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_MAX_MEDIA_BYTES",
        "DEFAULT_MAX_RESPONSE_BYTES",
        "FIRST_PARTY_SERVERS",
        "NARROW_ROOTS_META",
        "POSTGRES_HARD_MAX_ROWS",
        "checkReadOnlySql",
        "createFilesystemServer",
        "createLocalToolsServer",
        "createPostgresServer",
        "createSequentialThinkingServer",
        "openPostgresDatabase",
        "serveHttp",
        "serveStdio",
        "serverCommand",
      ]
    `);
  });

  it("exports no error classes (servers report tool errors, bins exit codes)", () => {
    const errors = Object.values(api).filter((v) => typeof v === "function" && v.prototype instanceof Error);
    expect(errors).toEqual([]);
  });
});
