// The catalog queries behind list_schemas, list_tables and describe_table. Each returns one row with one
// json column, so a whole answer is one round trip and arrives as nested JSON.

const SYSTEM_SCHEMA = `(n.nspname IN ('pg_catalog', 'information_schema', 'pg_toast')
  OR n.nspname LIKE 'pg\\_temp\\_%' OR n.nspname LIKE 'pg\\_toast\\_temp\\_%')`;

/** $1 = include system schemas (boolean). */
export const LIST_SCHEMAS_SQL = `
SELECT coalesce(json_agg(json_build_object(
         'name', n.nspname,
         'owner', pg_get_userbyid(n.nspowner),
         'system', ${SYSTEM_SCHEMA},
         'comment', obj_description(n.oid, 'pg_namespace')
       ) ORDER BY n.nspname), '[]'::json) AS schemas
FROM pg_namespace AS n
WHERE $1::boolean OR NOT ${SYSTEM_SCHEMA}`;

const KIND = `CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view'
  WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table' END`;

/** $1 = schema name, $2 = most tables returned (ask for one more to learn whether there are more). */
export const LIST_TABLES_SQL = `
SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = $1) AS schema_exists,
       coalesce(json_agg(t ORDER BY t.name), '[]'::json) AS tables
FROM (
  SELECT c.relname AS name, ${KIND} AS kind,
         CASE WHEN c.relkind IN ('v') OR c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END AS "rowEstimate",
         obj_description(c.oid, 'pg_class') AS comment
  FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  ORDER BY c.relname
  LIMIT $2
) AS t`;

/** $1 = schema name, $2 = table name. */
export const DESCRIBE_TABLE_SQL = `
SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = $1) AS schema_exists,
  (SELECT json_build_object(
    'schema', n.nspname,
    'name', c.relname,
    'kind', ${KIND},
    'comment', obj_description(c.oid, 'pg_class'),
    'rowEstimate', CASE WHEN c.relkind IN ('v') OR c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END,
    'columns', (
      SELECT coalesce(json_agg(json_build_object(
               'name', a.attname,
               'type', format_type(a.atttypid, a.atttypmod),
               'nullable', NOT a.attnotnull,
               'default', pg_get_expr(d.adbin, d.adrelid),
               'comment', col_description(c.oid, a.attnum)
             ) ORDER BY a.attnum), '[]'::json)
      FROM pg_attribute AS a LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
    'primaryKey', (
      SELECT json_agg(a.attname ORDER BY k.ord)
      FROM pg_constraint AS p
      CROSS JOIN LATERAL unnest(p.conkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute AS a ON a.attrelid = p.conrelid AND a.attnum = k.attnum
      WHERE p.conrelid = c.oid AND p.contype = 'p'),
    'foreignKeys', (
      SELECT coalesce(json_agg(json_build_object(
               'name', f.conname,
               'columns', (SELECT json_agg(a.attname ORDER BY k.ord)
                           FROM unnest(f.conkey) WITH ORDINALITY AS k(attnum, ord)
                           JOIN pg_attribute AS a ON a.attrelid = f.conrelid AND a.attnum = k.attnum),
               'references', json_build_object(
                 'schema', rn.nspname,
                 'table', rc.relname,
                 'columns', (SELECT json_agg(a.attname ORDER BY k.ord)
                             FROM unnest(f.confkey) WITH ORDINALITY AS k(attnum, ord)
                             JOIN pg_attribute AS a ON a.attrelid = f.confrelid AND a.attnum = k.attnum)),
               'onUpdate', CASE f.confupdtype WHEN 'a' THEN 'no action' WHEN 'r' THEN 'restrict'
                 WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' WHEN 'd' THEN 'set default' END,
               'onDelete', CASE f.confdeltype WHEN 'a' THEN 'no action' WHEN 'r' THEN 'restrict'
                 WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' WHEN 'd' THEN 'set default' END
             ) ORDER BY f.conname), '[]'::json)
      FROM pg_constraint AS f
      JOIN pg_class AS rc ON rc.oid = f.confrelid
      JOIN pg_namespace AS rn ON rn.oid = rc.relnamespace
      WHERE f.conrelid = c.oid AND f.contype = 'f'),
    'indexes', (
      SELECT coalesce(json_agg(json_build_object(
               'name', ic.relname,
               'definition', pg_get_indexdef(i.indexrelid),
               'unique', i.indisunique,
               'primary', i.indisprimary
             ) ORDER BY ic.relname), '[]'::json)
      FROM pg_index AS i JOIN pg_class AS ic ON ic.oid = i.indexrelid
      WHERE i.indrelid = c.oid)
  )
  FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) AS description`;
