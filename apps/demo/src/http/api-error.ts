// The REST API's error: an HTTP status, a stable `code` to switch on, a message, and optional details.
// Body: `{ "error": { "code": "...", "message": "...", ...details } }`.

/** Codes the REST API answers with (stable; documented in the README). */
export type ApiErrorCode =
  | "NOT_FOUND"
  | "SERVER_NOT_FOUND"
  | "SERVER_DISABLED"
  | "SERVER_UNAVAILABLE"
  | "RUN_NOT_FOUND"
  | "RUN_ACTIVE"
  | "RUN_FINISHED"
  | "RUN_START_FAILED"
  | "FOLDER_NOT_ALLOWED"
  | "INVALID_JSON"
  | "INVALID_BODY"
  | "INVALID_LAST_EVENT_ID"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "BODY_TOO_LARGE"
  | "UNAUTHORIZED"
  | "FORBIDDEN_HOST"
  | "FORBIDDEN_ORIGIN"
  | "FORBIDDEN_CROSS_SITE"
  | "RUN_CONFIG_MISMATCH"
  | "TOO_MANY_RUNS"
  | "SHUTTING_DOWN"
  | "CONFIG_RELOAD_FAILED"
  | "CONFIRMATION_NOT_FOUND"
  | "CONFIRMATION_ANSWERED"
  | "CONFIRMATION_EXPIRED"
  | "CONFIRMATION_PENDING"
  | "INTERNAL";

/** One problem with a request body: the field path (`folder`, `pauseAfter`) and what was expected. */
export interface BodyIssue {
  path: string;
  message: string;
}

/** An HTTP error answered as JSON. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 502 | 503;
  readonly code: ApiErrorCode;
  readonly details: Record<string, unknown>;
  /** Extra response headers (e.g. `WWW-Authenticate` on 401). */
  readonly headers: Record<string, string>;

  constructor(
    status: ApiError["status"],
    code: ApiErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  /** The response body. */
  toJSON(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}
