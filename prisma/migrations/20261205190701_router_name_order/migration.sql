-- The fleet's default order: by name as a person reads it (r2 before r10, "Lab" beside "lab"),
-- on every backend alike. "nameKey" is the name with each digit run written as its length (3
-- digits) and its digits without leading zeros, letters lower-cased; compared byte by byte
-- (COLLATE "C"), so PGlite and PostgreSQL under any locale order it the same. A trigger keeps
-- it, so every writer of a name (registration, enrollment, raw SQL) gets it without knowing.

-- AlterTable
ALTER TABLE "Router" ADD COLUMN     "nameKey" TEXT COLLATE "C";

CREATE FUNCTION "wrtfleet_name_key"(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(
           CASE WHEN m.part[1] ~ '^[0-9]'
                THEN lpad(length(ltrim(m.part[1], '0'))::text, 3, '0') || ltrim(m.part[1], '0')
                ELSE lower(m.part[1]) END,
           '' ORDER BY m.n), '')
    FROM regexp_matches(name, '[0-9]+|[^0-9]+', 'g') WITH ORDINALITY AS m(part, n)
$$;

-- Only when the name is written: heartbeats and Hellos never pay for it.
CREATE FUNCTION "wrtfleet_router_name_key"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW."nameKey" := "wrtfleet_name_key"(NEW.name);
  RETURN NEW;
END
$$;

CREATE TRIGGER "Router_name_key"
  BEFORE INSERT OR UPDATE OF name ON "Router"
  FOR EACH ROW EXECUTE FUNCTION "wrtfleet_router_name_key"();

UPDATE "Router" SET "nameKey" = "wrtfleet_name_key"(name);

-- CreateIndex
CREATE INDEX "Router_nameKey_id_idx" ON "Router"("nameKey", "id");
