-- One word per concept (docs/DOMAIN.md, Glossary): stored values move to today's spelling.
-- Renames keep every row: an enum value is stored by its OID, so renaming the label converts
-- every row and column default at once.

-- The OpenWrt release is `release` everywhere.
ALTER TABLE "Router" RENAME COLUMN "openwrtVersion" TO "openwrtRelease";
ALTER INDEX "Router_openwrtVersion_id_idx" RENAME TO "Router_openwrtRelease_id_idx";
UPDATE "Router"
   SET facts = jsonb_set(facts #- '{openwrt,version}', '{openwrt,release}', facts #> '{openwrt,version}')
 WHERE facts #> '{openwrt,version}' IS NOT NULL;
UPDATE "Rollout"
   SET selector = (selector - 'openwrt') || jsonb_build_object('release', selector -> 'openwrt')
 WHERE selector ? 'openwrt';
UPDATE "CommandJob"
   SET selector = (selector - 'openwrt') || jsonb_build_object('release', selector -> 'openwrt')
 WHERE selector ? 'openwrt';
UPDATE "Job"
   SET result = jsonb_set(result #- '{facts,openwrt}', '{facts,release}', result #> '{facts,openwrt}')
 WHERE result #> '{facts,openwrt}' IS NOT NULL;

-- Command kinds as the agent and the gRPC contract spell them.
ALTER TYPE "CommandKind" RENAME VALUE 're_probe' TO 'reprobe';
ALTER TYPE "CommandKind" RENAME VALUE 're_apply' TO 'reapply';

-- An operator's stop is `cancelled` (was `aborted` for rollouts); work not yet sent is `queued`.
ALTER TYPE "RolloutState" RENAME VALUE 'aborted' TO 'cancelled';
ALTER TYPE "RolloutTargetState" RENAME VALUE 'pending' TO 'queued';
