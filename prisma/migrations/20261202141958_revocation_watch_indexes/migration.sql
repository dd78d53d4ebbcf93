-- CreateIndex
CREATE INDEX "AgentCertificate_revokedAt_idx" ON "AgentCertificate"("revokedAt");

-- CreateIndex
CREATE INDEX "Router_decommissionedAt_idx" ON "Router"("decommissionedAt");
