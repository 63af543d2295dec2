// The deny list of side-effecting or privileged functions, written from the PostgreSQL 18 documentation
// ("System Administration Functions" 9.28, "Sequence Manipulation Functions" 9.17, "Large Objects" 33,
// NOTIFY, "XML Functions" 9.15.4, text search 12.4, and the dblink / postgres_fdw / tablefunc /
// pg_prewarm / pg_buffercache / pg_visibility / pg_stat_statements / pg_cron / pg_net / pgsql-http /
// pg_background extensions). A call is matched on its function name, whatever the schema or the quoting;
// a few names are matched only in the schema that defines them.

/** One family of denied functions and why they are denied. */
export interface DeniedFunctionFamily {
  /** Stable identifier, e.g. `advisory-lock`. */
  id: string;
  /** Why a call is refused, shown to the caller. */
  reason: string;
  /** Exact lower-case function names. */
  names?: readonly string[];
  /** Name patterns (lower case). */
  patterns?: readonly RegExp[];
  /** Every function in these schemas (lower case). */
  schemas?: readonly string[];
  /** Names denied only when unqualified (they may be on the search_path) or qualified with one of `schemas`. */
  scopedNames?: readonly string[];
}

/** Every family, in the order they are checked. */
export const DENIED_FUNCTION_FAMILIES: readonly DeniedFunctionFamily[] = [
  {
    id: "sequence",
    reason: "it advances or sets a sequence, a change that no rollback undoes",
    names: ["nextval", "setval"],
  },
  {
    id: "advisory-lock",
    reason: "advisory locks can outlive the query and block other sessions",
    patterns: [/^pg_(try_)?advisory_/],
  },
  {
    id: "backend-signal",
    reason: "it signals server processes (cancel, terminate, reload, log rotation)",
    names: [
      "pg_cancel_backend",
      "pg_terminate_backend",
      "pg_signal_backend",
      "pg_reload_conf",
      "pg_rotate_logfile",
      "pg_rotate_logfile_old",
      "pg_log_backend_memory_contexts",
      "pg_log_standby_snapshot",
    ],
  },
  {
    id: "server-file",
    reason: "it reads, lists or writes files on the database server",
    names: ["pg_read_file", "pg_read_file_old", "pg_read_binary_file", "pg_stat_file", "pg_logdir_ls"],
    patterns: [/^pg_ls_/, /^pg_file_/],
  },
  {
    id: "large-object",
    reason: "large-object functions create, change or export server-side objects and files",
    names: ["loread", "lowrite"],
    patterns: [/^lo_/],
  },
  {
    id: "config-setting",
    reason: "it changes a setting or session state",
    names: ["set_config", "setseed"],
  },
  {
    id: "notification",
    reason: "it sends a notification to other sessions",
    names: ["pg_notify"],
  },
  {
    id: "replication",
    reason: "it manages replication slots, origins or logical decoding",
    names: [
      "pg_create_physical_replication_slot",
      "pg_create_logical_replication_slot",
      "pg_drop_replication_slot",
      "pg_copy_physical_replication_slot",
      "pg_copy_logical_replication_slot",
      "pg_replication_slot_advance",
      "pg_sync_replication_slots",
      "pg_logical_emit_message",
    ],
    patterns: [/^pg_logical_slot_/, /^pg_replication_origin_/],
  },
  {
    id: "backup-recovery",
    reason: "it controls backups, WAL or recovery for the whole server",
    names: [
      "pg_backup_start",
      "pg_backup_stop",
      "pg_start_backup",
      "pg_stop_backup",
      "pg_switch_wal",
      "pg_switch_xlog",
      "pg_create_restore_point",
      "pg_promote",
      "pg_wal_replay_pause",
      "pg_wal_replay_resume",
      "pg_xlog_replay_pause",
      "pg_xlog_replay_resume",
      "pg_export_snapshot",
    ],
  },
  {
    id: "remote-connection",
    reason: "it opens connections or runs SQL outside this transaction (dblink-style)",
    names: ["http"],
    patterns: [/^dblink/, /^postgres_fdw_/, /^http_/, /^pg_background_/],
    schemas: ["net", "aws_s3", "aws_lambda", "aws_commons"],
  },
  {
    id: "dynamic-sql",
    reason: "it runs SQL given as text, which this check cannot see",
    names: [
      "query_to_xml",
      "query_to_xmlschema",
      "query_to_xml_and_xmlschema",
      "cursor_to_xml",
      "cursor_to_xmlschema",
      "table_to_xml",
      "table_to_xmlschema",
      "table_to_xml_and_xmlschema",
      "schema_to_xml",
      "schema_to_xmlschema",
      "schema_to_xml_and_xmlschema",
      "database_to_xml",
      "database_to_xmlschema",
      "database_to_xml_and_xmlschema",
      "ts_stat",
      "ts_rewrite",
      "crosstab",
      "crosstab2",
      "crosstab3",
      "crosstab4",
      "connectby",
    ],
  },
  {
    id: "job-scheduling",
    reason: "it schedules jobs that run outside this transaction",
    scopedNames: ["schedule", "unschedule", "schedule_in_database", "alter_job"],
    schemas: ["cron"],
  },
  {
    id: "maintenance",
    reason: "it changes server state (statistics, caches, indexes, collations or transaction IDs)",
    names: [
      "brin_summarize_new_values",
      "brin_summarize_range",
      "brin_desummarize_range",
      "gin_clean_pending_list",
      "pg_stat_statements_reset",
      "pg_stat_force_next_flush",
      "pg_import_system_collations",
      "pg_prewarm",
      "autoprewarm_start_worker",
      "autoprewarm_dump_now",
      "pg_truncate_visibility_map",
      "pg_nextoid",
      "pg_current_xact_id",
      "txid_current",
    ],
    patterns: [/^pg_stat_reset/, /^pg_buffercache_evict/, /^binary_upgrade_/],
  },
  {
    id: "delay",
    reason: "it only holds a connection and a snapshot open",
    names: ["pg_sleep", "pg_sleep_for", "pg_sleep_until"],
  },
];

/** The family that denies `name` (optionally qualified by `schema`), if any. Both are compared in lower case. */
export function deniedFunctionFamily(name: string, schema?: string): DeniedFunctionFamily | undefined {
  const fn = name.toLowerCase();
  const ns = schema?.toLowerCase();
  for (const family of DENIED_FUNCTION_FAMILIES) {
    if (ns !== undefined && family.schemas?.includes(ns)) return family;
    if (family.names?.includes(fn)) return family;
    if (family.patterns?.some((pattern) => pattern.test(fn))) return family;
    if (ns === undefined && family.scopedNames?.includes(fn)) return family;
  }
  return undefined;
}
