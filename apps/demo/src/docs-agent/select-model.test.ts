import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOllama } from "@langchain/ollama";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { UsageError } from "../shared/usage-error.js";
import { chooseProvider, createModel } from "./select-model.js";

const where = { root: "/tmp/project", folderName: "project" };

describe("chooseProvider", () => {
  it("takes the one asked for, else the first whose variable is set, else offline", () => {
    expect(chooseProvider("ollama", { OPENAI_API_KEY: "k" })).toBe("ollama");
    expect(chooseProvider(undefined, { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "a" })).toBe("openai");
    expect(chooseProvider(undefined, { ANTHROPIC_API_KEY: "a" })).toBe("anthropic");
    expect(chooseProvider(undefined, { OLLAMA_BASE_URL: "http://127.0.0.1:1" })).toBe("ollama");
    expect(chooseProvider(undefined, { OPENAI_API_KEY: "" })).toBe("offline");
    expect(() => chooseProvider("gpt-9", {})).toThrow(UsageError);
  });
});

describe("createModel", () => {
  it("openai: key, OPENAI_BASE_URL and AGENTFORGE_MODEL from the run's environment", async () => {
    const model = await createModel("openai", {
      ...where,
      env: {
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        AGENTFORGE_MODEL: "gpt-test",
      },
    });
    expect(model).toBeInstanceOf(ChatOpenAI);
    const openai = model as ChatOpenAI;
    expect(openai.model).toBe("gpt-test");
    expect(openai.temperature).toBe(0);
    expect(openai.apiKey).toBe("sk-test");
    expect((openai as unknown as { clientConfig: { baseURL?: string } }).clientConfig.baseURL).toBe(
      "http://127.0.0.1:9/v1",
    );
  });

  it("openai: the default model, and no base URL of its own when OPENAI_BASE_URL is unset or empty", async () => {
    const saved = { base: process.env.OPENAI_BASE_URL, api: process.env.OPENAI_API_BASE };
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_BASE;
    try {
      const model = (await createModel("openai", {
        ...where,
        env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "" },
      })) as ChatOpenAI;
      expect(model.model).toBe("gpt-4o-mini");
      expect(
        (model as unknown as { clientConfig: { baseURL?: string } }).clientConfig.baseURL,
      ).toBeUndefined();
    } finally {
      if (saved.base !== undefined) process.env.OPENAI_BASE_URL = saved.base;
      if (saved.api !== undefined) process.env.OPENAI_API_BASE = saved.api;
    }
  });

  it("anthropic: ANTHROPIC_BASE_URL first, else ANTHROPIC_API_URL", async () => {
    const both = (await createModel("anthropic", {
      ...where,
      env: {
        ANTHROPIC_API_KEY: "ak-test",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:7",
        ANTHROPIC_API_URL: "http://127.0.0.1:8",
      },
    })) as ChatAnthropic;
    expect(both).toBeInstanceOf(ChatAnthropic);
    expect(both.apiUrl).toBe("http://127.0.0.1:7");
    expect(both.apiKey).toBe("ak-test");
    expect(both.model).toBe("claude-sonnet-4-5");
    const apiUrl = (await createModel("anthropic", {
      ...where,
      env: { ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_API_URL: "http://127.0.0.1:8" },
    })) as ChatAnthropic;
    expect(apiUrl.apiUrl).toBe("http://127.0.0.1:8");
  });

  it("ollama: OLLAMA_BASE_URL and the model name; no key needed", async () => {
    const model = (await createModel("ollama", {
      ...where,
      env: { OLLAMA_BASE_URL: "http://127.0.0.1:6", AGENTFORGE_MODEL: "qwen-test" },
    })) as ChatOllama;
    expect(model).toBeInstanceOf(ChatOllama);
    expect(model.baseUrl).toBe("http://127.0.0.1:6");
    expect(model.model).toBe("qwen-test");
  });

  it("a missing key is a usage error naming the variable", async () => {
    await expect(createModel("openai", { ...where, env: {} })).rejects.toThrow(
      "--model openai needs OPENAI_API_KEY to be set",
    );
    await expect(createModel("anthropic", { ...where, env: { ANTHROPIC_API_KEY: "" } })).rejects.toThrow(
      UsageError,
    );
  });

  it("gives the install hint only when the provider package itself is missing", async () => {
    const missing = Object.assign(new Error("Cannot find package '@langchain/anthropic' imported from x"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    const hint = createModel("anthropic", {
      ...where,
      env: { ANTHROPIC_API_KEY: "k" },
      importModule: () => Promise.reject(missing),
    });
    await expect(hint).rejects.toThrow(UsageError);
    await expect(hint).rejects.toThrow(/needs the @langchain\/anthropic package.*pnpm install/);
    // A dependency of the package missing, or any other load failure: passed on unchanged.
    const inner = Object.assign(new Error("Cannot find package '@anthropic-ai/sdk' imported from y"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    await expect(
      createModel("anthropic", {
        ...where,
        env: { ANTHROPIC_API_KEY: "k" },
        importModule: () => Promise.reject(inner),
      }),
    ).rejects.toBe(inner);
    const broken = new SyntaxError("Unexpected token");
    await expect(
      createModel("openai", {
        ...where,
        env: { OPENAI_API_KEY: "k" },
        importModule: () => Promise.reject(broken),
      }),
    ).rejects.toBe(broken);
  });
});
