-- DropIndex
DROP INDEX "Router_openwrtVersion_idx";

-- AlterTable
ALTER TABLE "Router" ADD COLUMN     "drifted" BOOLEAN,
ADD COLUMN     "lastApplyStatus" "ApplyStatus",
ADD COLUMN     "stateChangedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateIndex
CREATE INDEX "Router_openwrtVersion_id_idx" ON "Router"("openwrtVersion", "id");

-- CreateIndex
CREATE INDEX "Router_soc_id_idx" ON "Router"("soc", "id");

-- CreateIndex
CREATE INDEX "Router_status_id_idx" ON "Router"("status", "id");

-- CreateIndex
CREATE INDEX "Router_model_id_idx" ON "Router"("model", "id");

-- CreateIndex
CREATE INDEX "Router_stateChangedAt_idx" ON "Router"("stateChangedAt");

-- The newest apply result of each router, for routers stored before this column existed.
UPDATE "Router" r SET "lastApplyStatus" = a.status
  FROM (SELECT DISTINCT ON ("routerId") "routerId", status FROM "ApplyResult"
         ORDER BY "routerId", "startedAt" DESC) a
 WHERE a."routerId" = r.id;

-- stateChangedAt moves whenever what the fleet table shows of a router's state changes,
-- whoever writes it (any replica, raw SQL or Prisma); heartbeats that only move lastSeenAt
-- leave it alone, so the change feed does not report every online router every few seconds.
CREATE FUNCTION "wrtfleet_router_state_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status
     OR NEW."appliedRevisionId" IS DISTINCT FROM OLD."appliedRevisionId"
     OR NEW."desiredRevisionId" IS DISTINCT FROM OLD."desiredRevisionId"
     OR NEW."lastApplyStatus" IS DISTINCT FROM OLD."lastApplyStatus"
     OR NEW.drifted IS DISTINCT FROM OLD.drifted
     OR NEW.tags IS DISTINCT FROM OLD.tags
     OR NEW.name IS DISTINCT FROM OLD.name
     OR NEW."decommissionedAt" IS DISTINCT FROM OLD."decommissionedAt" THEN
    NEW."stateChangedAt" := clock_timestamp();
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "Router_state_changed"
  BEFORE UPDATE ON "Router"
  FOR EACH ROW EXECUTE FUNCTION "wrtfleet_router_state_changed"();
