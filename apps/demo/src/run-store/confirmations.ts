// Confirmations a person gives for sensitive tool calls of unattended runs (`agentforge serve`): the run
// pauses `awaiting_confirmation` with the pending call stored here, the answer (REST, the /mcp page) is
// recorded here once — the first answer wins, across instances — and the run continues with it.
// A record holds what the person needs to decide (identity, title, annotations, a cleaned argument
// preview) and what binds the decision to the exact call (the definition fingerprint, the binding hash).

/** What the person decided. */
export type ConfirmationDecision = "allow" | "deny";
/** What an allow covers: this call only, or the same identity for the rest of the run. */
export type ConfirmationScope = "call" | "run";
/** `pending` until answered; `expired` counts as denied. */
export type ConfirmationStatus = "pending" | "allowed" | "denied" | "expired";

/** The tool's MCP annotations as the server stated them (hints only; a server can lie). */
export interface ConfirmationAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A confirmation asked for by a run. */
export interface NewConfirmation {
  runId: string;
  /** The executor's id of the call (as on its MCP_TOOL_CALL_* events). */
  callId: string;
  agent: string;
  /** `<server>.<tool>`. */
  identity: string;
  serverName: string;
  toolName: string;
  /** The tool's title, when it has one (cleaned, bounded). */
  title: string | null;
  annotations: ConfirmationAnnotations;
  /** The fingerprint of the tool's definition the decision is for. */
  fingerprint: string;
  /** Hash of identity + canonical arguments + definition fingerprint: the decision is only for this. */
  binding: string;
  /** The arguments for the person: bounded, escapes made visible, roster secrets redacted. */
  argumentsPreview: string;
}

/** A stored confirmation. */
export interface ConfirmationRecord extends NewConfirmation {
  requestedAt: string;
  expiresAt: string;
  status: ConfirmationStatus;
  /** The answer's scope (null until answered; null for an expiry). */
  scope: ConfirmationScope | null;
  /** Why, when the person said (cleaned, bounded) or the store decided (expiry). */
  reason: string | null;
  answeredAt: string | null;
  /**
   * Who answered: `token:<fingerprint>` (a hash of the API token, never the token), `loopback` (no token
   * configured), or `expiry`.
   */
  answeredBy: string | null;
}

/** An answer to a pending confirmation. */
export interface ConfirmationAnswer {
  decision: ConfirmationDecision;
  scope: ConfirmationScope;
  answeredBy: string;
  reason?: string;
}

/** What answering did. */
export type ConfirmationAnswerOutcome =
  /** Recorded. `released`: it was the run's last pending confirmation, the run is `paused` again. */
  | { outcome: "answered"; record: ConfirmationRecord; released: boolean }
  /** No such confirmation in that run. */
  | { outcome: "not_found" }
  /** Answered already, or expired: nothing changed. */
  | { outcome: "closed"; record: ConfirmationRecord };

/** Confirmations that expired now, and the runs that are paused again because of it. */
export interface ExpiredConfirmations {
  expired: ConfirmationRecord[];
  released: string[];
}

/** The default of `--confirmation-ttl`: 24 hours. */
export const DEFAULT_CONFIRMATION_TTL_MS = 24 * 60 * 60 * 1000;

/** Most pending confirmations one run may hold; a model that loops on sensitive calls is denied beyond. */
export const MAX_PENDING_PER_RUN = 16;

/** Most confirmations one run may ask for over its whole life. */
export const MAX_CONFIRMATIONS_PER_RUN = 64;

/** The status an answer gives. */
export function statusOf(decision: ConfirmationDecision): ConfirmationStatus {
  return decision === "allow" ? "allowed" : "denied";
}

/** The decision a closed record stands for (an expiry is a deny); undefined while pending. */
export function decisionOf(record: ConfirmationRecord): ConfirmationDecision | undefined {
  if (record.status === "pending") return undefined;
  return record.status === "allowed" ? "allow" : "deny";
}
