import {
  estimateTokens,
  isRecord,
  type ProviderAdapter,
  type Rejection,
  type Reply,
  randomId,
  splitText,
  TOOL_NAME_PATTERN,
} from "./adapter.js";

function anthropicError(status: number, type: string, message: string): Rejection {
  return {
    status,
    message,
    body: { type: "error", error: { type, message } },
    headers: { "request-id": `req_${randomId(24)}` },
  };
}

function bad(message: string): Rejection {
  return anthropicError(400, "invalid_request_error", message);
}

/** Tool types of Anthropic's server tools and versioned client tools: they carry no input_schema. */
function isBuiltInToolType(type: unknown): boolean {
  return typeof type === "string" && type !== "custom" && /_\d{8}$/.test(type);
}

function validateTools(tools: unknown): Rejection | undefined {
  if (!Array.isArray(tools)) return bad("tools: Input should be a valid list.");
  for (const [i, tool] of tools.entries()) {
    const at = `tools.${i}`;
    if (!isRecord(tool)) return bad(`${at}: Input should be a valid dictionary.`);
    if (isBuiltInToolType(tool.type)) continue;
    if (tool.type !== undefined && tool.type !== "custom") {
      return bad(
        `${at}.type: ${JSON.stringify(tool.type)} is not a known tool type; use "custom" or leave it out.`,
      );
    }
    if (tool.name === undefined) return bad(`${at}.name: Field required.`);
    if (typeof tool.name !== "string" || !TOOL_NAME_PATTERN.test(tool.name)) {
      return bad(
        `${at}.name: ${JSON.stringify(tool.name)} does not match the pattern '^[a-zA-Z0-9_-]{1,64}$'. Use 1 to 64 letters, digits, '_' or '-'.`,
      );
    }
    if (tool.input_schema === undefined) return bad(`${at}.input_schema: Field required.`);
    if (!isRecord(tool.input_schema)) return bad(`${at}.input_schema: Input should be a valid dictionary.`);
    if (tool.input_schema.type !== "object") {
      return bad(
        `${at}.input_schema.type: the input schema must have type "object" at the top level, got ${JSON.stringify(tool.input_schema.type ?? null)}.`,
      );
    }
  }
  return undefined;
}

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) => (isRecord(t) && typeof t.name === "string" ? [t.name] : []));
}

function hasTools(body: Record<string, unknown>): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

function validateToolChoice(body: Record<string, unknown>): Rejection | undefined {
  const choice = body.tool_choice;
  if (choice === undefined) return undefined;
  if (!isRecord(choice)) return bad("tool_choice: Input should be a valid dictionary.");
  const type = choice.type;
  if (type !== "auto" && type !== "any" && type !== "tool" && type !== "none") {
    return bad(`tool_choice.type: ${JSON.stringify(type)} is not one of "auto", "any", "tool" or "none".`);
  }
  if ((type === "any" || type === "tool") && !hasTools(body)) {
    return bad(`tool_choice: type "${type}" needs tools, but the request defines none.`);
  }
  if (type === "tool") {
    if (typeof choice.name !== "string") return bad("tool_choice.name: Field required.");
    if (!toolNames(body.tools).includes(choice.name)) {
      return bad(`tool_choice.name: no tool named '${choice.name}' is defined in tools.`);
    }
  }
  return undefined;
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function validateMessages(body: Record<string, unknown>, messages: unknown[]): Rejection | undefined {
  let usesToolBlocks = false;
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) return bad(`messages.${i}: Input should be a valid dictionary.`);
    const role = message.role;
    if (role !== "user" && role !== "assistant") {
      const hint = role === "system" ? ' Put system prompts in the top-level "system" field.' : "";
      return bad(
        `messages.${i}.role: Input should be 'user' or 'assistant', got ${JSON.stringify(role)}.${hint}`,
      );
    }
    if (typeof message.content !== "string" && !Array.isArray(message.content)) {
      return bad(`messages.${i}.content: Input should be a string or a list of content blocks.`);
    }
    for (const [j, block] of (Array.isArray(message.content) ? message.content : []).entries()) {
      if (!isRecord(block) || typeof block.type !== "string")
        return bad(`messages.${i}.content.${j}.type: Field required.`);
      if (block.type === "tool_use" || block.type === "tool_result") usesToolBlocks = true;
      if (block.type === "tool_use" && role !== "assistant") {
        return bad(`messages.${i}.content.${j}: \`tool_use\` blocks may only appear in assistant messages.`);
      }
      if (block.type === "tool_result" && role !== "user") {
        return bad(`messages.${i}.content.${j}: \`tool_result\` blocks may only appear in user messages.`);
      }
      if (block.type === "tool_use" && !isRecord(block.input)) {
        return bad(`messages.${i}.content.${j}.input: Input should be a valid dictionary.`);
      }
    }
  }
  if (isRecord(messages[0]) && messages[0].role !== "user") {
    return bad('messages: the first message must use the "user" role.');
  }
  if (usesToolBlocks && !hasTools(body)) {
    return bad("Requests which include `tool_use` or `tool_result` blocks must define tools.");
  }
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) continue;
    const blocks = blocksOf(message.content);
    if (message.role === "assistant") {
      const ids = blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id));
      if (ids.length === 0) continue;
      const next = messages[i + 1];
      const answered = new Set(
        isRecord(next) && next.role === "user"
          ? blocksOf(next.content)
              .filter((b) => b.type === "tool_result")
              .map((b) => String(b.tool_use_id))
          : [],
      );
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return bad(
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks in the message right after them: ${missing.join(", ")}. Answer every \`tool_use\` block with a \`tool_result\` block carrying the same id in the next (user) message.`,
        );
      }
    } else {
      const results = blocks.filter((b) => b.type === "tool_result");
      if (results.length === 0) continue;
      const prev = messages[i - 1];
      const known = new Set(
        isRecord(prev) && prev.role === "assistant"
          ? blocksOf(prev.content)
              .filter((b) => b.type === "tool_use")
              .map((b) => String(b.id))
          : [],
      );
      const unexpected = results.map((b) => String(b.tool_use_id)).filter((id) => !known.has(id));
      if (unexpected.length > 0) {
        return bad(
          `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. A \`tool_result\` block must answer a \`tool_use\` block of the previous (assistant) message.`,
        );
      }
    }
  }
  return undefined;
}

function parseInput(call: { args?: Record<string, unknown>; argsText?: string }): Record<string, unknown> {
  if (call.argsText === undefined) return call.args ?? {};
  const parsed: unknown = JSON.parse(call.argsText);
  if (!isRecord(parsed)) throw new Error("argsText must be a JSON object for anthropic");
  return parsed;
}

/** Anthropic Messages (`POST /v1/messages`). */
export const anthropicAdapter: ProviderAdapter = {
  route(req) {
    if (req.path !== "/v1/messages") {
      return anthropicError(
        404,
        "not_found_error",
        `Not found: ${req.method} ${req.path}. This server only serves POST /v1/messages.`,
      );
    }
    if (req.method !== "POST")
      return anthropicError(405, "invalid_request_error", `Method ${req.method} is not allowed; use POST.`);
    return undefined;
  },
  authenticate(req, apiKey) {
    const key = req.headers["x-api-key"];
    if (!key) return anthropicError(401, "authentication_error", "x-api-key header is required.");
    if (key !== apiKey) return anthropicError(401, "authentication_error", "invalid x-api-key");
    if (!req.headers["anthropic-version"]) return bad("anthropic-version: header is required.");
    return undefined;
  },
  parseError(detail) {
    return bad(`The request body is not valid JSON (${detail}).`);
  },
  validate(_req, body) {
    if (!isRecord(body)) return bad("The request body must be a JSON object.");
    if (body.model === undefined) return bad("model: Field required.");
    if (typeof body.model !== "string") return bad("model: Input should be a valid string.");
    if (body.max_tokens === undefined) return bad("max_tokens: Field required.");
    if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
      return bad("max_tokens: Input should be a positive integer.");
    }
    if (body.messages === undefined) return bad("messages: Field required.");
    if (!Array.isArray(body.messages)) return bad("messages: Input should be a valid list.");
    if (body.messages.length === 0) return bad("messages: at least one message is required.");
    if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system)) {
      return bad("system: Input should be a string or a list of text blocks.");
    }
    if (body.tools !== undefined) {
      const rejected = validateTools(body.tools);
      if (rejected) return rejected;
    }
    return validateToolChoice(body) ?? validateMessages(body, body.messages);
  },
  scriptError(message) {
    return anthropicError(500, "api_error", message);
  },
  checkTurn(body, turn) {
    const choice = isRecord(body) && isRecord(body.tool_choice) ? body.tool_choice.type : undefined;
    const calls = turn.toolCalls ?? [];
    if (choice === "none" && calls.length > 0) {
      return 'Script error: this turn makes tool calls, but the request set tool_choice {type: "none"}, so the model must not call tools. Fix the script.';
    }
    if ((choice === "any" || choice === "tool") && calls.length === 0) {
      return `Script error: the request forces a tool call (tool_choice type "${choice}"), but this turn makes none. Fix the script.`;
    }
    for (const call of calls) {
      try {
        parseInput(call);
      } catch {
        return `Script error: the argsText of the tool call '${call.name}' is not a JSON object; Anthropic tool_use input is always an object. Use args, or a JSON object text.`;
      }
    }
    return undefined;
  },
  respond(body, turn): Reply {
    const request = isRecord(body) ? body : {};
    const model = typeof request.model === "string" ? request.model : "unknown";
    const content: Record<string, unknown>[] = [];
    if (turn.text !== undefined && turn.text !== "") content.push({ type: "text", text: turn.text });
    for (const call of turn.toolCalls ?? []) {
      content.push({
        type: "tool_use",
        id: call.id ?? `toolu_${randomId(24)}`,
        name: call.name,
        input: parseInput(call),
      });
    }
    if (content.length === 0) content.push({ type: "text", text: turn.text ?? "" });
    const stopReason = (turn.toolCalls?.length ?? 0) > 0 ? "tool_use" : "end_turn";
    const inputTokens = estimateTokens([request.system, request.messages, request.tools]);
    const outputTokens = estimateTokens(content);
    const id = `msg_${randomId(24)}`;
    const headers = { "request-id": `req_${randomId(24)}` };
    if (request.stream !== true) {
      return {
        kind: "json",
        headers,
        body: {
          id,
          type: "message",
          role: "assistant",
          model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: { input_tokens: inputTokens, output_tokens: outputTokens },
        },
      };
    }
    const events: [string, unknown][] = [
      [
        "message_start",
        {
          type: "message_start",
          message: {
            id,
            type: "message",
            role: "assistant",
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: inputTokens, output_tokens: 1 },
          },
        },
      ],
    ];
    for (const [index, block] of content.entries()) {
      if (block.type === "text") {
        events.push([
          "content_block_start",
          { type: "content_block_start", index, content_block: { type: "text", text: "" } },
        ]);
        if (index === 0) events.push(["ping", { type: "ping" }]);
        for (const piece of splitText(String(block.text))) {
          events.push([
            "content_block_delta",
            { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } },
          ]);
        }
      } else {
        events.push([
          "content_block_start",
          {
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
          },
        ]);
        if (index === 0) events.push(["ping", { type: "ping" }]);
        for (const piece of splitText(JSON.stringify(block.input))) {
          events.push([
            "content_block_delta",
            { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } },
          ]);
        }
      }
      events.push(["content_block_stop", { type: "content_block_stop", index }]);
    }
    events.push([
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: outputTokens },
      },
    ]);
    events.push(["message_stop", { type: "message_stop" }]);
    return {
      kind: "stream",
      contentType: "text/event-stream; charset=utf-8",
      headers,
      frames: events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
    };
  },
};
