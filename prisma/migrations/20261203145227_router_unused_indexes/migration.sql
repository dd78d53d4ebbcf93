-- Two indexes no query uses, on the table a rollout writes twice per router. The SoC filters
-- compare case-insensitively (lower(soc), ILIKE), which (soc, createdAt, id) cannot serve, and
-- nothing looks routers up by applied revision (revisions are never deleted). Every write that
-- changes an indexed column of a router adds an entry to each index: 2,500 such writes took
-- 149 ms with them and 124 ms without (docs/BENCHMARKS.md).

-- DropIndex
DROP INDEX "Router_appliedRevisionId_idx";

-- DropIndex
DROP INDEX "Router_soc_createdAt_id_idx";
