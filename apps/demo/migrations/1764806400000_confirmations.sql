-- Confirmations of sensitive tool calls (issue 26): a run may stop `awaiting_confirmation` with its
-- pending calls stored here until a person answers (REST, the /mcp page) or they expire.
-- Applied with search_path set to the store's schema; never edit an applied migration.

-- Up Migration

ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
  CHECK (status IN ('running', 'paused', 'awaiting_confirmation', 'finished', 'failed'));

-- One row per call that needs a person's answer. The first answer wins: an UPDATE guarded by
-- `status = 'pending'` (see answerConfirmation), so a second answer, from any instance, changes nothing.
CREATE TABLE confirmations (
  run_id           text        NOT NULL,
  call_id          text        NOT NULL,
  agent            text        NOT NULL,
  identity         text        NOT NULL,
  server_name      text        NOT NULL,
  tool_name        text        NOT NULL,
  title            text,
  annotations      jsonb       NOT NULL,
  -- The tool definition's fingerprint and the hash binding the answer to this exact call.
  fingerprint      text        NOT NULL,
  binding          text        NOT NULL,
  -- The arguments for the person (bounded, cleaned, secrets redacted) — never shown in events or logs.
  arguments_preview text        NOT NULL,
  requested_at     timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  status           text        NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'allowed', 'denied', 'expired')),
  scope            text        CHECK (scope IN ('call', 'run')),
  reason           text,
  answered_at      timestamptz,
  -- `token:<fingerprint>`, `loopback` or `expiry`; never a token.
  answered_by      text,
  PRIMARY KEY (run_id, call_id)
);

CREATE INDEX confirmations_pending_idx ON confirmations (requested_at) WHERE status = 'pending';
CREATE INDEX confirmations_expiry_idx ON confirmations (expires_at) WHERE status = 'pending';

-- Down Migration

DROP TABLE confirmations;
ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
  CHECK (status IN ('running', 'paused', 'finished', 'failed'));
