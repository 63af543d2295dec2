import { describe, expect, it } from "vitest";
import { UsageError } from "../shared/usage-error.js";
import { databaseUrlFrom, parseDatabaseUrl, redactDatabaseUrl, redactSecret } from "./database-url.js";

describe("databaseUrlFrom", () => {
  it("is none without a flag or DATABASE_URL (an empty variable is none)", () => {
    expect(databaseUrlFrom(undefined, {})).toBeUndefined();
    expect(databaseUrlFrom(undefined, { DATABASE_URL: "  " })).toBeUndefined();
  });

  it("takes --database-url over DATABASE_URL and masks the password", () => {
    const url = databaseUrlFrom("postgresql://app:s3cret@db.internal:5433/runs", {
      DATABASE_URL: "postgres://other@h/x",
    });
    expect(url).toEqual({
      url: "postgresql://app:s3cret@db.internal:5433/runs",
      redacted: "postgresql://app:***@db.internal:5433/runs",
      source: "--database-url",
    });
    expect(databaseUrlFrom(undefined, { DATABASE_URL: "postgres://u@h/db" })?.source).toBe("DATABASE_URL");
  });

  it("refuses what is not a postgres URL with a host and a database, never echoing the password", () => {
    for (const [value, message] of [
      ["", /empty value/],
      ["not a url", /is not a URL/],
      ["mysql://u:s3cret@h/db", /scheme "mysql"/],
      ["postgres://u:s3cret@h", /names no database/],
      ["postgres://u:s3cret@h/", /names no database/],
    ] as const) {
      let caught: unknown;
      try {
        databaseUrlFrom(value, {});
      } catch (error) {
        caught = error;
      }
      expect(caught, value).toBeInstanceOf(UsageError);
      expect((caught as Error).message).toMatch(message);
      expect((caught as Error).message).not.toContain("s3cret");
    }
  });

  it("redacts a password even in a text that does not parse as a URL", () => {
    expect(redactDatabaseUrl("postgres://u:p@ss w@rd@h/db")).toBe("postgres://u:***@h/db");
    expect(redactDatabaseUrl("postgres://u@h/db")).toBe("postgres://u@h/db");
  });
});

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
