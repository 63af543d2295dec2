import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DatabaseUrlError, parseDatabaseUrl, redact } from "./database-url.js";

describe("parseDatabaseUrl", () => {
  it("no URL, an empty one or pglite:// is the in-memory embedded database", () => {
    for (const url of [undefined, "", "  ", "pglite://", "pglite://memory"]) {
      expect(parseDatabaseUrl(url)).toEqual({ kind: "pglite", secrets: [] });
    }
  });

  it("pglite:///abs and pglite://relative are data directories", () => {
    expect(parseDatabaseUrl("pglite:///var/lib/demo")).toMatchObject({
      kind: "pglite",
      dataDir: "/var/lib/demo",
    });
    expect(parseDatabaseUrl("pglite://data/demo%20db")).toMatchObject({ dataDir: resolve("data/demo db") });
  });

  it("postgres URLs keep the connection string and list what must be scrubbed", () => {
    const location = parseDatabaseUrl("postgresql://reader:s3cr%21t@db.internal:5432/shop?sslmode=require");
    expect(location.kind).toBe("postgres");
    expect(location.secrets).toEqual(
      expect.arrayContaining([
        "postgresql://reader:s3cr%21t@db.internal:5432/shop?sslmode=require",
        "s3cr%21t",
        "s3cr!t",
        "reader:s3cr%21t",
      ]),
    );
    expect(parseDatabaseUrl("postgres://h/db?password=hunter22").secrets).toContain("hunter22");
  });

  it("bad URLs name the field and never echo the value", () => {
    const attempt = (url: string, field?: string) => {
      try {
        parseDatabaseUrl(url, field);
      } catch (error) {
        expect(error).toBeInstanceOf(DatabaseUrlError);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    expect(attempt("mysql://root:hunter2@db/x", "DATABASE_URL")).toBe(
      'DATABASE_URL must start with postgres://, postgresql:// or pglite:// (got a "mysql://" URL)',
    );
    const noScheme = attempt("reader:hunter2@db:5432/x");
    expect(noScheme).toBe("url must start with postgres://, postgresql:// or pglite://");
    expect(noScheme).not.toContain("hunter2");
    expect(noScheme).not.toContain("reader");
    expect(attempt("pglite:relative")).toMatch(/^url must be pglite:\/\/ \(in memory\) or pglite:\/\/\/path/);
  });
});

describe("redact", () => {
  it("replaces every occurrence, longest secret first", () => {
    const { secrets } = parseDatabaseUrl("postgres://bob:pa55word@h/db");
    expect(redact("failed for postgres://bob:pa55word@h/db with pa55word", secrets)).toBe(
      "failed for *** with ***",
    );
  });
});
