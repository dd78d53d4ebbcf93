-- UpdateData: onboarding jobs spell the placement as the Placement enum does (on_router, not on-router).
-- Audit events are append-only and hash-chained: they keep the spelling they were written with.
UPDATE "Job"
SET "input" = jsonb_set("input", '{placement}', '"on_router"')
WHERE "kind" = 'onboarding' AND "input"->>'placement' = 'on-router';

UPDATE "Job"
SET "result" = jsonb_set("result", '{placement}', '"on_router"')
WHERE "kind" = 'onboarding' AND "result"->>'placement' = 'on-router';
