/**
 * The SDK `Client` of one connection attempt: its capabilities follow the handlers the manager was given
 * (elicitation only with a handler; roots and sampling never — deprecated, SEP-2577 — so the SDK answers
 * them "method not found"), and its notification and request handlers report to the connection.
 */

import type { MCPProtocolVersionSetting } from "@agentforge/mcp-config";
import {
  Client,
  type ClientOptions,
  isInputRequiredResult,
  type VersionNegotiationMode,
} from "@modelcontextprotocol/client";
import {
  answerElicitation,
  ELICITATION_CAPABILITY,
  toElicitationRequest,
} from "../calls/answer-elicitation.js";
import { checkRequestState, inputRoundListener, roundModes } from "../calls/input-rounds.js";
import type { ConnectionSettings } from "../connection/connection-types.js";
import { SCHEMA_VALIDATOR } from "../tools/schema-validator.js";
import { logLine } from "./server-log.js";

/** The most `input_required` rounds one request may take (each round is one more request). */
export const MAX_INPUT_ROUNDS = 8;

/** The SDK's version negotiation mode for a server's `protocol_version` (absent means `auto`). */
export function negotiationMode(setting: MCPProtocolVersionSetting | undefined): VersionNegotiationMode {
  if (setting === "2025-11-25") return "legacy";
  if (setting === "2026-07-28") return { pin: "2026-07-28" };
  return "auto";
}

/** What the client reports to its connection. */
export interface ClientSetup {
  settings: ConnectionSettings;
  serverName: string;
  /** The server's `protocol_version` setting. */
  protocolVersion: MCPProtocolVersionSetting | undefined;
  /** How long the version probe may take (the connection timeout). */
  probeTimeoutMs: number;
  /** Default limit of the elicitation handler (the server's tool timeout). */
  toolTimeoutMs: number;
  /** The transport closed. */
  onClose: () => void;
  /** The server sent `notifications/tools/list_changed` (unsolicited, or on a listen stream). */
  onToolsChanged: () => void;
  /** The server sent `notifications/prompts/list_changed` or `notifications/resources/list_changed`. */
  onListChanged: (methods: readonly string[]) => void;
  /** A line for the server's log (its `notifications/message`, or a note of the client's own). */
  onLog: (line: string) => void;
}

type NonComplete = Parameters<Client["_resolveNonCompleteResult"]>;

/**
 * The SDK client, with each `input_required` round of a request checked (its `requestState` bounded,
 * see `MAX_REQUEST_STATE_BYTES`) and reported to the request's round listener before it is answered.
 */
class RoundCheckingClient extends Client {
  constructor(
    info: ConstructorParameters<typeof Client>[0],
    options: ClientOptions,
    private readonly serverName: string,
  ) {
    super(info, options);
  }

  protected override _resolveNonCompleteResult(
    decoded: NonComplete[0],
    flow: NonComplete[1],
  ): Promise<unknown> {
    const { method, params } = flow.request;
    const listener = inputRoundListener(params);
    const toolName = method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
    const request = { serverName: this.serverName, method, toolName };
    let round = 0;
    const arrived = (inputRequests: unknown, requestState: unknown) => {
      round += 1;
      checkRequestState(requestState, request);
      // A round past the limit is refused by the SDK (INPUT_ROUNDS_EXCEEDED), not reported.
      if (!listener || round > MAX_INPUT_ROUNDS) return;
      // Guarded by the call path: a listener that throws is a process warning, never the request's end.
      listener({ round, modes: roundModes(inputRequests) });
    };
    try {
      arrived(decoded.inputRequests, decoded.requestState);
    } catch (error) {
      return Promise.reject(error);
    }
    return super._resolveNonCompleteResult(decoded, {
      ...flow,
      retry: async (retryParams, legOptions) => {
        const result = await flow.retry(retryParams, legOptions);
        if (isInputRequiredResult(result)) arrived(result.inputRequests, result.requestState);
        return result;
      },
    });
  }
}

/** A new, unconnected SDK client for one connection attempt. */
export function createClient(setup: ClientSetup): Client {
  const { settings, serverName } = setup;
  const elicitation = settings.elicitation;
  const client = new RoundCheckingClient(
    settings.clientInfo,
    {
      capabilities: elicitation ? { elicitation: { ...ELICITATION_CAPABILITY } } : {},
      jsonSchemaValidator: SCHEMA_VALIDATOR,
      versionNegotiation: {
        mode: negotiationMode(setup.protocolVersion),
        probe: { timeoutMs: setup.probeTimeoutMs },
      },
      inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
    },
    serverName,
  );
  client.onerror = () => {
    // Transport noise (a stray stdout line, a dropped SSE stream); failures surface on requests.
  };
  client.onclose = setup.onClose;
  client.setNotificationHandler("notifications/tools/list_changed", () => setup.onToolsChanged());
  client.setNotificationHandler("notifications/prompts/list_changed", () =>
    setup.onListChanged(["prompts/list"]),
  );
  client.setNotificationHandler("notifications/resources/list_changed", () =>
    setup.onListChanged(["resources/list", "resources/templates/list"]),
  );
  client.setNotificationHandler("notifications/message", (notification) =>
    setup.onLog(logLine(notification.params)),
  );
  if (elicitation) {
    // The SDK has checked the request's shape and mode, and checks the answer's shape after us.
    client.setRequestHandler("elicitation/create", async (request, context) => {
      const asked = toElicitationRequest(serverName, request.params);
      if (!asked) return { action: "decline" };
      const timeoutMs = settings.elicitationTimeoutMs ?? setup.toolTimeoutMs;
      const outcome = await answerElicitation(elicitation, asked, context.mcpReq.signal, timeoutMs);
      if (outcome.declinedBecause) {
        setup.onLog(
          `[client] elicitation/create (${asked.mode}) answered decline: ${outcome.declinedBecause}`,
        );
      }
      return outcome.result;
    });
  }
  return client;
}
