import type { MCPError } from "@agentforge/mcp-config";
import { MCPPermissionDeniedError } from "@agentforge/mcp-permissions";
import { MCPToolNotFoundError } from "../errors.js";
import type { MCPToolExecutor } from "../mcp-tool-executor.js";
import { modelToolName } from "../mcp-tool-name-map.js";

/** A model's call of a name it was not given: what the model is told, and what the audit trail got. */
export interface UnknownToolCall {
  /** What the model reads: the name does not exist among the tools it was given (nothing more). */
  forModel: MCPToolNotFoundError;
  /** What was reported: TOOL_DENIED for a tool the agent may not use, else TOOL_NOT_FOUND. */
  reported: MCPError;
  /** The identity the name stands for, when it names a registered tool; else the name as sent. */
  identity: string;
}

/**
 * Report a call of a tool name the model was not given (`known`: the names it was). When the name is the
 * model name of a registered tool (`server__tool`), it is reported with that tool's identity — as a
 * DENIED call when the policy denies the agent that tool (the audit trail sees the attempt for what it
 * is), as not found otherwise (granted, but not bound: not found by a search yet, or left out). The model
 * is told only that the name is not one of its tools: nothing about tools it may not use.
 */
export function reportUnknownTool(
  executor: MCPToolExecutor,
  agent: string,
  modelName: string,
  known: readonly string[],
): UnknownToolCall {
  const forModel = new MCPToolNotFoundError(modelName, known);
  const matches = executor.registry.list().filter((tool) => modelToolName(tool.identity) === modelName);
  const tool = matches.length === 1 ? matches[0] : undefined;
  if (!tool) {
    executor.reject(agent, modelName, forModel);
    return { forModel, reported: forModel, identity: modelName };
  }
  const decision = executor.policy.decide(agent, tool.identity);
  const reported: MCPError = decision.allowed
    ? new MCPToolNotFoundError(tool.identity, [], {
        reason: "The tool is granted, but was not among the tools given to the model for this turn.",
      })
    : new MCPPermissionDeniedError({
        agent,
        kind: "tool",
        identity: tool.identity,
        serverName: tool.serverName,
        toolName: tool.toolName,
        reason: decision.reason,
        ...(decision.matchedPattern ? { matchedPattern: decision.matchedPattern } : {}),
      });
  executor.reject(agent, tool.identity, reported);
  return { forModel, reported, identity: tool.identity };
}
