/** Types shared by the modules of one server's connection. */
import type { EnvSource } from "@agentforge/mcp-config";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Implementation } from "@modelcontextprotocol/sdk/types.js";
import type { EventEmitter } from "eventemitter3";
import type { CreateTransportOptions } from "../create-transport.js";
import type { MCPElicitationHandler } from "../elicitation.js";
import type { MCPClientManagerEvents } from "../mcp-client-manager.js";
import type { BackoffOptions } from "./backoff.js";
import type { BuiltTransport } from "./build-transport.js";

/** Settings shared by every connection of one manager. */
export interface ConnectionSettings {
  transport: CreateTransportOptions;
  env: EnvSource;
  clientInfo: Implementation;
  backoff: BackoffOptions;
  healthTimeoutMs: number | undefined;
  events: EventEmitter<MCPClientManagerEvents>;
  /** Answers the servers' elicitation requests; when absent, the capability is not declared. */
  elicitation?: MCPElicitationHandler;
  /** How long the elicitation handler may take (default: the server's tool timeout). */
  elicitationTimeoutMs?: number;
  onListenerError?: (error: unknown, event: keyof MCPClientManagerEvents, serverName: string) => void;
}

/** An open connection: the SDK client, its transport, and the generation it belongs to. */
export interface Live {
  client: Client;
  built: BuiltTransport;
  generation: number;
}
