// Which chat model the Documentation agent uses: the offline strategy, or a provider through LangChain.

import { ScriptedChatModel } from "@agentforge/agent-runtime/testing";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { PROVIDERS, type Provider } from "../shared/providers.js";
import { UsageError } from "../shared/usage-error.js";
import { createOfflineDocsStrategy } from "./offline-docs-strategy.js";

export { PROVIDERS, type Provider } from "../shared/providers.js";

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

interface ProviderSpec {
  pkg: string;
  className: string;
  /** Default model name (`AGENTFORGE_MODEL` overrides it). */
  model: string;
  /** The variable holding the API key, when the provider needs one. */
  keyVar?: string;
  /** The constructor fields, from the environment given to the run (not the process's). */
  fields(env: NodeJS.ProcessEnv, model: string): Record<string, unknown>;
}

/** A variable's value, with empty meaning unset (the way a shell's `VAR=` is meant). */
const value = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name] || undefined;

/**
 * Every provider's package, class and constructor fields. Base URLs and keys are passed explicitly
 * rather than left to each client's own environment reading, so the run's `env` decides and the
 * behaviour is the same on every client version:
 * - openai: `OPENAI_API_KEY`, `OPENAI_BASE_URL` (e.g. `http://127.0.0.1:8080/v1`, with `/v1`);
 * - anthropic: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, else `ANTHROPIC_API_URL` (no `/v1`: the
 *   client appends `/v1/messages`);
 * - ollama: `OLLAMA_BASE_URL` (default `http://127.0.0.1:11434`).
 */
export const PROVIDER_SPECS: Readonly<Record<Exclude<Provider, "offline">, ProviderSpec>> = {
  openai: {
    pkg: "@langchain/openai",
    className: "ChatOpenAI",
    model: "gpt-4o-mini",
    keyVar: "OPENAI_API_KEY",
    fields: (env, model) => {
      const baseURL = value(env, "OPENAI_BASE_URL");
      return {
        model,
        temperature: 0,
        apiKey: value(env, "OPENAI_API_KEY"),
        ...(baseURL ? { configuration: { baseURL } } : {}),
      };
    },
  },
  anthropic: {
    pkg: "@langchain/anthropic",
    className: "ChatAnthropic",
    model: "claude-sonnet-4-5",
    keyVar: "ANTHROPIC_API_KEY",
    fields: (env, model) => {
      const url = value(env, "ANTHROPIC_BASE_URL") ?? value(env, "ANTHROPIC_API_URL");
      return {
        model,
        temperature: 0,
        apiKey: value(env, "ANTHROPIC_API_KEY"),
        ...(url ? { anthropicApiUrl: url } : {}),
      };
    },
  },
  ollama: {
    pkg: "@langchain/ollama",
    className: "ChatOllama",
    model: "llama3.1",
    fields: (env, model) => {
      const baseUrl = value(env, "OLLAMA_BASE_URL");
      return { model, temperature: 0, ...(baseUrl ? { baseUrl } : {}) };
    },
  },
};

/** Whether an import failed because `pkg` itself is not installed (not because something inside it broke). */
function isMissingPackage(error: unknown, pkg: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  const message = (error as { message?: unknown }).message;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    message.includes(`'${pkg}'`)
  );
}

/** How `createModel` loads a provider package (tests pass their own). */
export type ImportModule = (specifier: string) => Promise<Record<string, unknown>>;

const importModule: ImportModule = async (specifier) => (await import(specifier)) as Record<string, unknown>;

/**
 * Build the chat model for a provider from `env` (the run's environment). A provider package that is not
 * installed gives an install hint; any other failure while loading it is passed on as it is.
 */
export async function createModel(
  provider: Provider,
  options: { root: string; folderName: string; env: NodeJS.ProcessEnv; importModule?: ImportModule },
): Promise<BaseChatModel> {
  if (provider === "offline") {
    return new ScriptedChatModel(
      createOfflineDocsStrategy({ root: options.root, fallbackName: options.folderName }),
    );
  }
  const spec = PROVIDER_SPECS[provider];
  if (spec.keyVar && !value(options.env, spec.keyVar)) {
    throw new UsageError(`--model ${provider} needs ${spec.keyVar} to be set`);
  }
  let module: Record<string, unknown>;
  try {
    module = await (options.importModule ?? importModule)(spec.pkg);
  } catch (error) {
    if (!isMissingPackage(error, spec.pkg)) throw error;
    throw new UsageError(
      `--model ${provider} needs the ${spec.pkg} package, which is not installed: run \`pnpm install\` at the repository root (it is a dependency of apps/demo), or \`npm install ${spec.pkg}\` in your own app`,
    );
  }
  const ModelClass = module[spec.className] as new (fields: Record<string, unknown>) => BaseChatModel;
  return new ModelClass(spec.fields(options.env, value(options.env, "AGENTFORGE_MODEL") ?? spec.model));
}
