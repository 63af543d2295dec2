/**
 * Types shared by the modules of one server's connection (lifecycle, call path, tool cache, health).
 * They live here so that none of those modules imports a type back from a module that imports it.
 */
import type { EnvSource, MCPError, MCPEventEmitter, MCPServerConfig } from "@agentforge/mcp-config";
import type { Client, Implementation } from "@modelcontextprotocol/client";
import type { MCPElicitationHandler } from "../../elicitation.js";
import type { CreateTransportOptions, MCPClientManagerEvents, MCPDisconnectReason } from "../../types.js";
import type { BackoffOptions } from "../shared/backoff.js";
import type { BuiltTransport } from "../transport/build-transport.js";

/** Settings shared by every connection of one manager. */
export interface ConnectionSettings {
  transport: CreateTransportOptions;
  env: EnvSource;
  clientInfo: Implementation;
  backoff: BackoffOptions;
  healthTimeoutMs: number | undefined;
  /** The manager's private emitter (nothing outside the manager can emit on it). */
  events: MCPEventEmitter<ManagerEventPayloads>;
  /** Answers the servers' elicitation requests; when absent, the capability is not declared. */
  elicitation?: MCPElicitationHandler;
  /** How long the elicitation handler may take (default: the server's tool timeout). */
  elicitationTimeoutMs?: number;
}

/** An open connection: the SDK client, its transport, and the generation it belongs to. */
export interface Live {
  client: Client;
  built: BuiltTransport;
  generation: number;
}

/** What a failed request was doing, for mapping its error (see `ConnectionCore.failed`). */
export interface FailureContext {
  method: string;
  toolName?: string;
  timeoutMs: number;
  started: number;
  cancelled: boolean;
  totalTimeoutMs: number | undefined;
  timeoutSetting?: string;
}

/** The manager's events by name, each with its payload (what its `MCPEventEmitter` carries). */
export type ManagerEventPayloads = {
  [K in keyof MCPClientManagerEvents]: Parameters<MCPClientManagerEvents[K]>[0];
};

/** The payload of one manager event. */
export type EventPayload<K extends keyof MCPClientManagerEvents> = ManagerEventPayloads[K];

/**
 * What the lifecycle module (`ServerConnection`) offers the call path, the tool cache and the health
 * check: the open connection, connecting on demand, error mapping, step-up logins and events.
 */
export interface ConnectionCore {
  readonly config: MCPServerConfig;
  readonly settings: ConnectionSettings;
  /** The open connection, if any (no I/O). */
  readonly live: Live | undefined;
  /** The open connection, connecting first if needed (one attempt shared by concurrent callers). */
  ensure(signal?: AbortSignal): Promise<Live>;
  /** Map a request failure on `live` to a client error (and drop a connection found dead). */
  failed(error: unknown, live: Live | undefined, context: FailureContext): MCPError;
  /** Run a request, completing a pending OAuth step-up login and retrying when the server asks for one. */
  withLogin<T>(live: Live, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T>;
  /** Emit a manager event; listener errors are contained. */
  emit<K extends keyof MCPClientManagerEvents>(name: K, payload: EventPayload<K>): void;
  /** Close the connection; the next use reconnects. */
  close(reason?: MCPDisconnectReason): Promise<void>;
}
