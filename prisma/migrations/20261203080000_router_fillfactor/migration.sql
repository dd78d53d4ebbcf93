-- Room on each page for a router's next version. Heartbeats rewrite lastSeenAt (no indexed
-- column) several hundred times a second at 10,000 routers; with a full page PostgreSQL moves
-- the row and writes all sixteen of its index entries again, with room it updates in place
-- (a HOT update): 37-57 µs a row before, 12-18 µs with 30 % free (docs/BENCHMARKS.md).
-- Pages written before this keep their fill until their rows next move.
ALTER TABLE "Router" SET (fillfactor = 70);
