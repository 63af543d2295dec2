import type { ModelProvider, ModelServer } from "../src/index.js";
import { startModelServer } from "../src/index.js";
import { langchainAnthropic, langchainMessages, langchainOllama, langchainOpenAI } from "./clients.js";

const servers: ModelServer[] = [];
const saved = new Map<string, string | undefined>();

function setEnv(name: string, value: string) {
  if (!saved.has(name)) saved.set(name, process.env[name]);
  process.env[name] = value;
}

async function start(provider: ModelProvider) {
  const server = await startModelServer(provider, { turns: [{ text: `hello from ${provider}` }] });
  servers.push(server);
  return server;
}

afterEach(async () => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("clients configured only through the environment reach the servers", () => {
  const hi = () => [new langchainMessages.HumanMessage("hi")];

  it("OPENAI_BASE_URL + OPENAI_API_KEY", async () => {
    const server = await start("openai");
    setEnv("OPENAI_BASE_URL", server.baseURL);
    setEnv("OPENAI_API_KEY", "test-key");
    const reply = await new langchainOpenAI.ChatOpenAI({ model: "gpt-4o-mini", maxRetries: 0 }).invoke(hi());
    expect(reply.content).toBe("hello from openai");
    expect(server.requests).toHaveLength(1);
  });

  it("ANTHROPIC_BASE_URL + ANTHROPIC_API_KEY", async () => {
    const server = await start("anthropic");
    setEnv("ANTHROPIC_BASE_URL", server.baseURL);
    setEnv("ANTHROPIC_API_KEY", "test-key");
    const reply = await new langchainAnthropic.ChatAnthropic({
      model: "claude-sonnet-4-5",
      maxRetries: 0,
    }).invoke(hi());
    expect(reply.content).toBe("hello from anthropic");
    expect(server.requests).toHaveLength(1);
  });

  it("OLLAMA_BASE_URL", async () => {
    const server = await start("ollama");
    setEnv("OLLAMA_BASE_URL", server.baseURL);
    const reply = await new langchainOllama.ChatOllama({ model: "llama3.1", maxRetries: 0 }).invoke(hi());
    expect(reply.content).toBe("hello from ollama");
    expect(server.requests).toHaveLength(1);
  });
});
