/**
 * The SDK `Client` of one connection attempt: its capabilities follow the handlers the manager was given
 * (elicitation only with a handler; roots and sampling never — deprecated, SEP-2577 — so the SDK answers
 * them "method not found"), and its notification and request handlers report to the connection.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ConnectionSettings } from "./connection-types.js";
import { answerElicitation, ELICITATION_CAPABILITY, toElicitationRequest } from "./elicitation.js";
import { logLine } from "./server-log.js";

/** What the client reports to its connection. */
export interface ClientSetup {
  settings: ConnectionSettings;
  serverName: string;
  /** Default limit of the elicitation handler (the server's tool timeout). */
  toolTimeoutMs: number;
  /** The transport closed. */
  onClose: () => void;
  /** The server sent `notifications/tools/list_changed`. */
  onToolsChanged: () => void;
  /** A line for the server's log (its `notifications/message`, or a note of the client's own). */
  onLog: (line: string) => void;
}

/** A new, unconnected SDK client for one connection attempt. */
export function createClient(setup: ClientSetup): Client {
  const { settings, serverName } = setup;
  const elicitation = settings.elicitation;
  const client = new Client(settings.clientInfo, {
    capabilities: elicitation ? { elicitation: { ...ELICITATION_CAPABILITY } } : {},
  });
  client.onerror = () => {
    // Transport noise (a stray stdout line, a dropped SSE stream); failures surface on requests.
  };
  client.onclose = setup.onClose;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => setup.onToolsChanged());
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) =>
    setup.onLog(logLine(notification.params)),
  );
  if (elicitation) {
    // The SDK has checked the request's shape and mode, and checks the answer's shape after us.
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const asked = toElicitationRequest(serverName, request.params);
      if (!asked) return { action: "decline" };
      const timeoutMs = settings.elicitationTimeoutMs ?? setup.toolTimeoutMs;
      const outcome = await answerElicitation(elicitation, asked, extra.signal, timeoutMs);
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
