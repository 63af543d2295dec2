/**
 * Default cap of the text a model gets from one tool call, in UTF-16 code units. Longer results are
 * cut and end with `... [N characters truncated]`; the raw MCP result stays intact.
 */
export const MAX_MCP_RESULT_CHARS = 8000;

/**
 * Default number of tool rounds in a tool loop before the model is asked for a final answer without
 * running more tools (`invokeWithTools`; with the AI SDK: `stopWhen: stepCountIs(MAX_MCP_TOOL_ROUNDS + 1)`).
 */
export const MAX_MCP_TOOL_ROUNDS = 3;

/**
 * Progress of one call is reported at most once per this many milliseconds (and only when the value
 * grew), however many notifications a server sends; a value that reaches the call's total is always
 * reported once.
 */
export const MCP_PROGRESS_INTERVAL_MS = 100;

/**
 * Most tools given to a model in one request. OpenAI's Chat Completions API accepts at most 128; the
 * tool loops never bind more (to any provider), and say which tools they left out.
 */
export const MAX_MODEL_TOOLS = 128;

/** Tools a search returns when the caller (or the model) gives no limit. */
export const MCP_TOOL_SEARCH_RESULTS = 5;

/** Most tools one search may return. */
export const MAX_MCP_TOOL_SEARCH_RESULTS = 10;

/** A search query is cut to this many characters before it is ranked. */
export const MAX_MCP_TOOL_SEARCH_QUERY_CHARS = 500;

/**
 * Default number of confirmation requests one run may make (`maxConfirmationsPerRun`): a model that
 * loops on a tool needing confirmation is refused (CONFIRMATION_LIMIT_REACHED) instead of asking a
 * person again and again.
 */
export const MAX_MCP_CONFIRMATIONS_PER_RUN = 20;

/** Default wait for a confirmation handler's answer before the call is denied (10 minutes). */
export const MCP_CONFIRMATION_TIMEOUT_MS = 600_000;

/** Most characters of the argument preview a confirmation request shows a person. */
export const MAX_MCP_CONFIRMATION_PREVIEW_CHARS = 2000;
