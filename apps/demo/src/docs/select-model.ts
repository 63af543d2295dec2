// Which chat model the Documentation agent uses: the offline strategy, or a provider through LangChain.

import { ScriptedChatModel } from "@agentforge/agent-runtime/testing";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { UsageError } from "../internal/usage-error.js";
import { createOfflineDocsStrategy } from "./offline-docs-strategy.js";

export const PROVIDERS = ["offline", "openai", "anthropic", "ollama"] as const;
export type Provider = (typeof PROVIDERS)[number];

/** The provider to use: the one asked for, else the first whose key is set, else offline. */
export function chooseProvider(requested: string | undefined, env: NodeJS.ProcessEnv): Provider {
  if (requested !== undefined) {
    if (!(PROVIDERS as readonly string[]).includes(requested)) {
      throw new UsageError(`--model expects one of ${PROVIDERS.join(", ")}, got "${requested}"`);
    }
    return requested as Provider;
  }
  if (env.OPENAI_API_KEY) return "openai";
  if (env.ANTHROPIC_API_KEY) return "anthropic";
  if (env.OLLAMA_BASE_URL) return "ollama";
  return "offline";
}

const PACKAGES: Record<
  Exclude<Provider, "offline">,
  { pkg: string; className: string; model: string; keyVar?: string }
> = {
  openai: {
    pkg: "@langchain/openai",
    className: "ChatOpenAI",
    model: "gpt-4o-mini",
    keyVar: "OPENAI_API_KEY",
  },
  anthropic: {
    pkg: "@langchain/anthropic",
    className: "ChatAnthropic",
    model: "claude-sonnet-4-5",
    keyVar: "ANTHROPIC_API_KEY",
  },
  ollama: { pkg: "@langchain/ollama", className: "ChatOllama", model: "llama3.1" },
};

/** Build the chat model for a provider; a missing provider package gives an install hint. */
export async function createModel(
  provider: Provider,
  options: { root: string; folderName: string; env: NodeJS.ProcessEnv },
): Promise<BaseChatModel> {
  if (provider === "offline") {
    return new ScriptedChatModel(
      createOfflineDocsStrategy({ root: options.root, fallbackName: options.folderName }),
    );
  }
  const spec = PACKAGES[provider];
  if (spec.keyVar && !options.env[spec.keyVar]) {
    throw new UsageError(`--model ${provider} needs ${spec.keyVar} to be set`);
  }
  let module: Record<string, unknown>;
  try {
    const specifier: string = spec.pkg;
    module = (await import(specifier)) as Record<string, unknown>;
  } catch {
    throw new UsageError(`--model ${provider} needs the ${spec.pkg} package: npm install ${spec.pkg}`);
  }
  const ModelClass = module[spec.className] as new (fields: Record<string, unknown>) => BaseChatModel;
  const model = options.env.AGENTFORGE_MODEL ?? spec.model;
  if (provider === "ollama") return new ModelClass({ model, baseUrl: options.env.OLLAMA_BASE_URL });
  return new ModelClass({ model, temperature: 0 });
}
