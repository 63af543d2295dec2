import { describe, expect, it } from "vitest";
import {
  basicCredentials,
  MIN_SECRET_LENGTH,
  REDACTED,
  Redactor,
  redactorFor,
  safeCause,
} from "./redactor.js";

describe("Redactor", () => {
  it("replaces every occurrence, longest secret first", () => {
    const redactor = new Redactor(["abcdef", "abcdefghij"]);
    expect(redactor.redact("x abcdefghij y abcdef z abcdefghij")).toBe(
      `x ${REDACTED} y ${REDACTED} z ${REDACTED}`,
    );
  });

  it(`ignores empty, undefined and values shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    const redactor = new Redactor(["", undefined, "true", "1"]);
    expect(redactor.empty).toBe(true);
    expect(redactor.redact("true 1")).toBe("true 1");
  });

  it("accepts secrets added later (issued tokens)", () => {
    const redactor = new Redactor();
    redactor.add("token-issued-later");
    expect(redactor.leaks("Bearer token-issued-later")).toBe(true);
    expect(redactor.redact("Bearer token-issued-later")).toBe(`Bearer ${REDACTED}`);
  });

  it("collects the values of every variable a config reads", () => {
    const redactor = redactorFor(
      {
        name: "gh",
        enabled: true,
        transport: "http",
        url: "https://example.invalid/mcp?key=${API_KEY}",
        headers: { "X-Team": "TEAM_VAR" },
        auth: { type: "bearer", credentialEnvVar: "GH_TOKEN" },
        connectionTimeout: 10,
        toolTimeout: 30,
        resetTimeoutOnProgress: false,
      },
      {
        API_KEY: "query-key-123",
        TEAM_VAR: "team-secret",
        GH_TOKEN: "ghp_canary_value",
        OTHER: "not-read-by-config",
      },
    );
    expect(redactor.redact("query-key-123 team-secret ghp_canary_value not-read-by-config")).toBe(
      `${REDACTED} ${REDACTED} ${REDACTED} not-read-by-config`,
    );
  });
});

describe("safeCause", () => {
  const redactor = new Redactor(["super-secret-value"]);

  it("keeps an error that leaks nothing", () => {
    const error = new Error("plain failure");
    expect(safeCause(error, redactor)).toBe(error);
  });

  it("replaces an error whose message or cause leaks a secret", () => {
    const direct = safeCause(new Error("got super-secret-value back"), redactor) as Error;
    expect(direct.message).toBe(`got ${REDACTED} back`);
    const nested = new Error("outer", { cause: new Error("inner super-secret-value") });
    const copy = safeCause(nested, redactor) as Error;
    expect(copy).not.toBe(nested);
    expect(
      JSON.stringify({ message: copy.message, stack: copy.stack, cause: String(copy.cause) }),
    ).not.toContain("super-secret-value");
  });
});

describe("Basic client credentials", () => {
  it("redacts base64(id:secret), plain and form-urlencoded, when an authorization server echoes it", () => {
    const env = { CID: "client-1", CSECRET: "s3cr3t value/+&" };
    const redactor = redactorFor(
      {
        name: "remote",
        enabled: true,
        transport: "http",
        url: "https://remote.example/mcp",
        headers: {},
        auth: {
          type: "oauth",
          grant: "client_credentials",
          clientIdEnvVar: "CID",
          clientSecretEnvVar: "CSECRET",
        },
        connectionTimeout: 10,
        toolTimeout: 30,
        resetTimeoutOnProgress: false,
      },
      env,
    );
    const forms = basicCredentials(env.CID, env.CSECRET);
    expect(forms.length).toBe(2);
    for (const form of forms) {
      const text = `invalid_client: got Authorization: Basic ${form}`;
      expect(redactor.redact(text)).not.toContain(form);
    }
    expect(basicCredentials(undefined, "x")).toEqual([]);
  });
});
