// The chat model providers a Documentation run can use: the offline strategy or a provider's API.

/** Every provider name, in the order `chooseProvider` prefers them. */
export const PROVIDERS = ["offline", "openai", "anthropic", "ollama"] as const;
/** One provider name. */
export type Provider = (typeof PROVIDERS)[number];
