-- GIN siblings for FerretDB's indexes, installed in a database FerretDB stores in (at every
-- start: every statement here is idempotent).
--
-- FerretDB writes equality as JSON containment, `_jsonb->'f' @> v`, which the B-tree indexes it
-- creates on `(_jsonb->'f')` cannot serve; a GIN jsonb_path_ops index on the same expression can.
-- An event trigger gives every B-tree index FerretDB creates such a sibling per column, and the
-- back-fill at the end gives them to the indexes made before it was installed. `_id` gets none:
-- its equality is `=` (restgate's pushdown patch), which the B-tree serves.
--
-- Each sibling costs about 0.35 ms of PostgreSQL CPU per insert and 5-7 MB per 100,000 rows.
-- A sibling outlives a dropIndex of its B-tree (a dropped collection takes both); it still serves.

CREATE OR REPLACE FUNCTION public.restgate_gin_siblings_of(btree oid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  ix record;
  col int;
  expr text;
  field text;
BEGIN
  SELECT i.indrelid, i.indnkeyatts, c.relname AS table_name, n.nspname AS schema_name INTO ix
  FROM pg_index i
  JOIN pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_am am ON am.oid = ic.relam
  JOIN pg_class c ON c.oid = i.indrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE i.indexrelid = btree AND am.amname = 'btree' AND i.indexprs IS NOT NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  FOR col IN 1..ix.indnkeyatts LOOP
    expr := pg_get_indexdef(btree, col, true);
    CONTINUE WHEN expr NOT LIKE '(_jsonb -> %' OR expr = '(_jsonb -> ''_id''::text)';
    -- Named after the table and the field, e.g. users_5e7cc513_email_<hash>_gin (<= 63 bytes).
    field := trim(both '_' from regexp_replace(regexp_replace(expr, '::text|_jsonb|->', '', 'g'), '[^a-zA-Z0-9]+', '_', 'g'));
    EXECUTE format(
      'CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s jsonb_path_ops)',
      left(ix.table_name, 24) || '_' || left(field, 24) || '_' || left(md5(expr), 8) || '_gin',
      ix.schema_name, ix.table_name, expr);
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION public.restgate_gin_siblings() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  cmd record;
BEGIN
  FOR cmd IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' LOOP
    PERFORM public.restgate_gin_siblings_of(cmd.objid);
  END LOOP;
END
$$;

DROP EVENT TRIGGER IF EXISTS restgate_gin_siblings;
CREATE EVENT TRIGGER restgate_gin_siblings ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION public.restgate_gin_siblings();

SELECT count(public.restgate_gin_siblings_of(i.indexrelid))
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'public')
  AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = '_jsonb');
