-- Runs, their events and the audit trail of `agentforge serve` (PostgreSQL store).
-- Applied by node-pg-migrate with search_path set to the configured schema (default "agentforge"),
-- so every name here is unqualified. Never edit an applied migration: add a new file instead.

-- Up Migration

-- One row per docs run. `state` is the serialized tool-loop state (plain JSON, never an MCP object).
CREATE TABLE runs (
  id               text        PRIMARY KEY,
  agent            text        NOT NULL,
  folder           text        NOT NULL,
  model            text        NOT NULL,
  config_path      text,
  max_rounds       integer     NOT NULL,
  status           text        NOT NULL CHECK (status IN ('running', 'paused', 'finished', 'failed')),
  state            jsonb       NOT NULL,
  document         text,
  error            text,
  -- The `serve` instance that runs the run or ran it last.
  owner_instance   text,
  -- While `running`: when the owner's lease ends. After that the run is paused by a sweep (resumable).
  lease_expires_at timestamptz,
  -- The run-queue job (pg-boss job id) queued for or executing this run; NULL when none.
  job_id           uuid,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX runs_created_at_idx ON runs (created_at DESC);
CREATE INDEX runs_running_lease_idx ON runs (lease_expires_at) WHERE status = 'running';

-- The last event id given out per run. Kept apart from `runs` so events may be appended before the run
-- row is first saved; the row lock taken by the upsert orders concurrent appends of one run.
CREATE TABLE run_event_counters (
  run_id  text    PRIMARY KEY,
  last_id integer NOT NULL
);

-- Events of a run, numbered 1, 2, 3... per run across its whole life (the SSE ids).
CREATE TABLE run_events (
  run_id text        NOT NULL,
  id     integer     NOT NULL,
  type   text        NOT NULL,
  at     timestamptz NOT NULL,
  data   jsonb       NOT NULL,
  PRIMARY KEY (run_id, id)
);

-- Who called what and how it ended (never arguments or results).
CREATE TABLE audit (
  id    bigserial   PRIMARY KEY,
  at    timestamptz NOT NULL DEFAULT now(),
  entry jsonb       NOT NULL
);

-- Down Migration

DROP TABLE audit;
DROP TABLE run_events;
DROP TABLE run_event_counters;
DROP TABLE runs;
