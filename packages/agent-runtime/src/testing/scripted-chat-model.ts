import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";

/** A tool as the scripted model sees it once bound: name, description, JSON Schema of the arguments. */
export interface ScriptedToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool call a script asks for (an id is generated when missing). */
export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/** What a script step produces: plain text, a ready message, or tool calls (with optional text). */
export type ScriptedReply = string | AIMessage | { toolCalls: ScriptedToolCall[]; content?: string };

/** What a step function is given to decide its reply. */
export interface ScriptContext {
  /** The conversation so far, as sent to the model. */
  messages: BaseMessage[];
  /** The tools bound for this call (empty when called without tools). */
  tools: ScriptedToolInfo[];
  /** 0-based index of this call on the model. */
  callIndex: number;
  /** The `tool_choice` bound with the tools, if any (e.g. `"none"` on a tool loop's final call). */
  toolChoice?: unknown;
}

/** One step of a script: a fixed reply, or a function of the conversation (for adaptive strategies). */
export type ScriptStep = ScriptedReply | ((context: ScriptContext) => ScriptedReply | Promise<ScriptedReply>);

/** Call options of `ScriptedChatModel`: the tools (and tool choice) bound with `bindTools`. */
export type ScriptedChatModelCallOptions = BaseChatModelCallOptions & {
  tools?: ScriptedToolInfo[];
  tool_choice?: unknown;
};

/** Options of `ScriptedChatModel`. */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /** When the script runs out: `"error"` (default) throws, `"repeat-last"` repeats the last step. */
  whenExhausted?: "error" | "repeat-last";
}

/** A call the model received, recorded for assertions. */
export interface ScriptedCall {
  messages: BaseMessage[];
  tools: ScriptedToolInfo[];
  /** The `tool_choice` bound with the tools, if any. */
  toolChoice?: unknown;
}

function toToolInfo(tool: BindToolsInput): ScriptedToolInfo {
  const converted = convertToOpenAITool(tool) as {
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  };
  return {
    name: converted.function.name,
    description: converted.function.description ?? "",
    parameters: converted.function.parameters ?? {},
  };
}

/**
 * A real LangChain chat model that answers from a script instead of an LLM — for tests and offline
 * demos. It supports `bindTools` and replies with tool calls, so tool loops run for real. A step can be
 * a function of the conversation and the bound tools, which makes adaptive offline strategies possible.
 */
export class ScriptedChatModel extends BaseChatModel<ScriptedChatModelCallOptions, AIMessageChunk> {
  readonly #steps: ScriptStep[];
  readonly #whenExhausted: "error" | "repeat-last";
  readonly #calls: ScriptedCall[] = [];
  #next = 0;
  #ids = 0;

  constructor(script: ScriptStep[] | ScriptStep, options: ScriptedChatModelOptions = {}) {
    super(options);
    this.#steps = Array.isArray(script) ? [...script] : [script];
    this.#whenExhausted = options.whenExhausted ?? (Array.isArray(script) ? "error" : "repeat-last");
  }

  /** Every call received so far. */
  get calls(): readonly ScriptedCall[] {
    return this.#calls;
  }

  /** Number of calls received so far. */
  get callCount(): number {
    return this.#calls.length;
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs: Partial<ScriptedChatModelCallOptions> = {},
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools: tools.map(toToolInfo) });
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    options.signal?.throwIfAborted();
    const tools = options.tools ?? [];
    const callIndex = this.#calls.length;
    const toolChoice = options.tool_choice;
    this.#calls.push({ messages: [...messages], tools, ...(toolChoice !== undefined ? { toolChoice } : {}) });
    let step = this.#steps[this.#next];
    if (step === undefined) {
      if (this.#whenExhausted === "error" || this.#steps.length === 0) {
        throw new Error(
          `ScriptedChatModel: the script has ${this.#steps.length} step(s) and all were used (call ${callIndex + 1})`,
        );
      }
      step = this.#steps[this.#steps.length - 1] as ScriptStep;
    } else {
      this.#next++;
    }
    const reply =
      typeof step === "function"
        ? await step({ messages, tools, callIndex, ...(toolChoice !== undefined ? { toolChoice } : {}) })
        : step;
    const message = this.#toMessage(reply);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }

  #toMessage(reply: ScriptedReply): AIMessage {
    if (typeof reply === "string") return new AIMessage(reply);
    if (reply instanceof AIMessage) return reply;
    return new AIMessage({
      content: reply.content ?? "",
      tool_calls: reply.toolCalls.map((call) => ({
        name: call.name,
        args: call.args,
        id: call.id ?? `scripted_call_${++this.#ids}`,
        type: "tool_call" as const,
      })),
    });
  }
}
