import type { ModelProvider, ModelServer } from "../src/index.js";
import { startModelServer } from "../src/index.js";
import { post } from "./clients.js";

const servers: ModelServer[] = [];

async function start(
  provider: ModelProvider,
  turns: Parameters<typeof startModelServer>[1]["turns"],
  apiKey?: string,
) {
  const server = await startModelServer(provider, { turns, ...(apiKey ? { apiKey } : {}) });
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const openaiRequest = { model: "m", messages: [{ role: "user", content: "hi" }] };

describe("startModelServer (common behaviour)", () => {
  it("gives each provider its base URL on 127.0.0.1", async () => {
    const openai = await start("openai", []);
    const anthropic = await start("anthropic", []);
    const ollama = await start("ollama", []);
    expect(openai.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(anthropic.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ollama.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect([openai.provider, anthropic.provider, ollama.provider]).toEqual(["openai", "anthropic", "ollama"]);
  });

  it("rejects an unknown provider", async () => {
    await expect(startModelServer("gemini" as ModelProvider, { turns: [] })).rejects.toThrow(
      /Unknown model provider "gemini"/,
    );
  });

  it("honours a custom apiKey and records every request, rejected ones included, with lower-cased headers", async () => {
    const server = await start("openai", [{ text: "one" }], "custom-key");
    const rejected = await post(
      `${server.baseURL}/chat/completions`,
      { Authorization: "Bearer test-key" },
      openaiRequest,
    );
    const accepted = await post(
      `${server.baseURL}/chat/completions`,
      { Authorization: "Bearer custom-key", "X-Trace": "t1" },
      openaiRequest,
    );
    expect([rejected.status, accepted.status]).toEqual([401, 200]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]).toMatchObject({
      status: 401,
      error: expect.stringContaining("Incorrect API key"),
      body: openaiRequest,
    });
    expect(server.requests[1]).toMatchObject({ status: 200, body: openaiRequest });
    expect(server.requests[1]?.error).toBeUndefined();
    expect(server.requests[1]?.headers["x-trace"]).toBe("t1");
    expect(server.turnsConsumed).toBe(1);
  });

  it("passes the request to a turn function, and turns a throwing function into a 500 script error", async () => {
    const seen: string[] = [];
    const server = await start("openai", [
      (req) => {
        seen.push(req.body.messages[0].content);
        return { text: "from function" };
      },
      () => {
        throw new Error("assertion in script failed");
      },
    ]);
    const ok = await post(
      `${server.baseURL}/chat/completions`,
      { authorization: "Bearer test-key" },
      openaiRequest,
    );
    expect(ok.json.choices[0].message.content).toBe("from function");
    expect(seen).toEqual(["hi"]);
    const failed = await post(
      `${server.baseURL}/chat/completions`,
      { authorization: "Bearer test-key" },
      openaiRequest,
    );
    expect(failed.status).toBe(500);
    expect(failed.json.error.message).toMatch(/turn #2 threw: assertion in script failed/);
    expect(server.requests[1]).toMatchObject({
      status: 500,
      error: expect.stringContaining("assertion in script failed"),
    });
  });

  it("answers exhaustion in each provider's error shape", async () => {
    const openai = await start("openai", []);
    const anthropic = await start("anthropic", []);
    const ollama = await start("ollama", []);
    const o = await post(
      `${openai.baseURL}/chat/completions`,
      { authorization: "Bearer test-key" },
      openaiRequest,
    );
    const a = await post(
      `${anthropic.baseURL}/v1/messages`,
      { "x-api-key": "test-key", "anthropic-version": "2023-06-01" },
      { ...openaiRequest, max_tokens: 5 },
    );
    const l = await post(`${ollama.baseURL}/api/chat`, {}, openaiRequest);
    expect([o.status, a.status, l.status]).toEqual([500, 500, 500]);
    expect(o.json.error).toMatchObject({
      type: "server_error",
      message: expect.stringMatching(/script is exhausted/),
    });
    expect(a.json).toMatchObject({
      type: "error",
      error: { type: "api_error", message: expect.stringMatching(/script is exhausted/) },
    });
    expect(l.json).toEqual({ error: expect.stringMatching(/script is exhausted/) });
  });

  it("close() is idempotent and stops the listener", async () => {
    const server = await start("ollama", []);
    await server.close();
    await server.close();
    await expect(fetch(`${server.baseURL}/`)).rejects.toThrow();
  });
});
