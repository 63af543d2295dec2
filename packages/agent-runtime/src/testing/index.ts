// @agentforge/agent-runtime/testing: a scripted chat model for tests and offline runs.
export {
  type ScriptContext,
  type ScriptedCall,
  ScriptedChatModel,
  type ScriptedChatModelCallOptions,
  type ScriptedChatModelOptions,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptedToolInfo,
  type ScriptStep,
} from "./scripted-chat-model.js";
