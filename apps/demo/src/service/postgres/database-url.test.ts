import { describe, expect, it } from "vitest";
import { parseDatabaseUrl, redactSecret } from "./database-url.js";
import { toJsonb } from "./sql-values.js";

describe("parseDatabaseUrl", () => {
  it("reads host, port, database and user, keeping the password apart", () => {
    const target = parseDatabaseUrl("postgres://agent:p%40ss@db.internal:6543/runs?sslmode=require");
    expect(target).toMatchObject({
      host: "db.internal:6543",
      database: "runs",
      user: "agent",
      secret: "p@ss",
    });
    expect(parseDatabaseUrl("postgresql://db.internal/app")).toMatchObject({
      host: "db.internal:5432",
      database: "app",
      user: null,
      secret: null,
    });
  });

  it("refuses what is not a PostgreSQL URL", () => {
    expect(parseDatabaseUrl("mysql://a:b@h/db")).toBeUndefined();
    expect(parseDatabaseUrl("not a url")).toBeUndefined();
    expect(parseDatabaseUrl("")).toBeUndefined();
  });
});

describe("redactSecret", () => {
  it("removes the URL and the password, raw or URL-encoded", () => {
    const url = "postgres://agent:p%40ss%2Fword@db:5432/runs";
    const target = parseDatabaseUrl(url);
    const text = `failed for ${url}: password p@ss/word rejected (p%40ss%2Fword)`;
    const redacted = redactSecret(text, url, target);
    expect(redacted).not.toContain("p@ss/word");
    expect(redacted).not.toContain("p%40ss%2Fword");
    expect(redacted).toBe("failed for ***: password *** rejected (***)");
  });
});

describe("toJsonb", () => {
  it("replaces NUL (refused by jsonb) in keys and values, but not an escaped backslash before u0000", () => {
    const json = toJsonb({ "k\0": "a\0b", literal: "\\u0000", nested: ["\0"] });
    expect(JSON.parse(json)).toEqual({ "k\uFFFD": "a\uFFFDb", literal: "\\u0000", nested: ["\uFFFD"] });
  });
});
