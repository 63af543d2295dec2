// @agentforge/model-servers: scripted LLM provider servers for tests. Each speaks one provider's real HTTP
// API on 127.0.0.1 (OpenAI chat completions, Anthropic messages, Ollama chat), enforces that provider's
// request rules with its real error statuses and bodies, and answers from a script of turns.

// Servers
export { startModelServer } from "./start-model-server.js";
// Types
export type {
  ModelProvider,
  ModelServer,
  ReceivedRequest,
  ScriptEntry,
  ScriptedToolCall,
  ScriptedTurn,
  StartModelServerOptions,
} from "./types.js";
