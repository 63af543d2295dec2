import { describe, expect, it } from "vitest";
import {
  createSecretRedactor,
  MIN_SECRET_LENGTH,
  REDACTED_MARKER,
  SecretRedactor,
  secretForms,
} from "./secret-redactor.js";

const R = REDACTED_MARKER;

describe("SecretRedactor", () => {
  it("replaces every occurrence, the longest value first", () => {
    const redactor = createSecretRedactor(["abcdef", "abcdefghij"]);
    expect(redactor.redact("x abcdefghij y abcdef z abcdefghij")).toBe(`x ${R} y ${R} z ${R}`);
  });

  it(`ignores empty, undefined, non-string and values shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    const redactor = new SecretRedactor(["", undefined, null, "true", "1", 12 as unknown as string]);
    expect(redactor.empty).toBe(true);
    expect(redactor.redact("true 1 12")).toBe("true 1 12");
    expect(redactor.leaks("true")).toBe(false);
  });

  it("redacts the JSON-escaped form, also JSON inside a JSON string", () => {
    const redactor = createSecretRedactor(['se"cret\\1']);
    expect(redactor.redact(JSON.stringify({ v: 'x se"cret\\1 y' }))).toBe(`{"v":"x ${R} y"}`);
    const twice = JSON.stringify({ text: JSON.stringify({ v: 'se"cret\\1' }) });
    expect(redactor.redact(twice)).not.toContain("cret");
  });

  it("redacts URL-encoded forms in either hex case, and form encoding", () => {
    const value = "p@ss w/rd:42";
    const redactor = createSecretRedactor([value]);
    const upper = encodeURIComponent(value);
    expect(redactor.redact(`?a=${upper}&b=1`)).toBe(`?a=${R}&b=1`);
    expect(redactor.redact(`?a=${upper.toLowerCase()}`)).toBe(`?a=${R}`);
    expect(redactor.redact(`https://u:${encodeURI(value)}@h`)).toBe(`https://u:${R}@h`);
    expect(redactor.redact(new URLSearchParams({ a: value }).toString())).toBe(`a=${R}`);
    expect(secretForms(value).length).toBeGreaterThan(2);
  });

  it("treats regex syntax in values literally", () => {
    const redactor = createSecretRedactor(["a.b*c+d(e)[f]$"]);
    expect(redactor.redact("aXb*c+d(e)[f]$ a.b*c+d(e)[f]$")).toBe(`aXb*c+d(e)[f]$ ${R}`);
  });

  it("accepts values added later and reports leaks", () => {
    const redactor = createSecretRedactor();
    expect(redactor.redact("Bearer token-issued-later")).toBe("Bearer token-issued-later");
    redactor.add("token-issued-later");
    expect(redactor.leaks("Bearer token-issued-later")).toBe(true);
    expect(redactor.leaks("Bearer token-issued-later")).toBe(true); // no sticky regex state
    expect(redactor.redact("Bearer token-issued-later")).toBe(`Bearer ${R}`);
  });
});

describe("SecretRedactor.stream", () => {
  const secret = "sk-live-0123456789abcdef";

  it("catches a value split across two chunks at every possible position", () => {
    const redactor = createSecretRedactor([secret]);
    const text = `before ${secret} after`;
    for (let split = 0; split <= text.length; split++) {
      const stream = redactor.stream();
      const out = stream.push(text.slice(0, split)) + stream.push(text.slice(split)) + stream.flush();
      expect(out).toBe(`before ${R} after`);
    }
  });

  it("catches a value fed one character at a time, and escaped forms", () => {
    const redactor = createSecretRedactor([secret, 'q"uoted-value']);
    const text = `a ${secret} b ${JSON.stringify('q"uoted-value')} c`;
    const stream = redactor.stream();
    let out = "";
    for (const char of text) out += stream.push(char);
    out += stream.flush();
    expect(out).toBe(redactor.redact(text));
    expect(out).not.toContain("uoted");
  });

  it("holds back fewer characters than the longest form and passes text through without secrets", () => {
    const stream = createSecretRedactor().stream();
    expect(stream.push("plain")).toBe("plain");
    const withSecret = createSecretRedactor([secret]).stream();
    const out = withSecret.push("x".repeat(100));
    expect(out.length).toBeGreaterThan(100 - secret.length * 3);
    expect(out + withSecret.flush()).toBe("x".repeat(100));
  });

  it("peek never shows the beginning of a value whose rest has not arrived", () => {
    const redactor = createSecretRedactor([secret]);
    const stream = redactor.stream();
    const written = stream.push(`line one\n${secret.slice(0, 10)}`);
    expect(written + stream.peek()).not.toContain(secret.slice(0, 10));
    expect(written + stream.peek()).toContain("line one");
    expect(written + stream.push(secret.slice(10)) + stream.flush()).toBe(`line one\n${R}`);
  });
});
