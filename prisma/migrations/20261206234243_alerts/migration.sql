-- CreateEnum
CREATE TYPE "AlertKind" AS ENUM ('router_offline', 'drift_detected', 'apply_failed', 'rollout_paused', 'certificate_expiring', 'audit_chain_broken', 'dependency_unreachable');

-- CreateEnum
CREATE TYPE "AlertSeverity" AS ENUM ('info', 'warning', 'critical');

-- CreateEnum
CREATE TYPE "AlertState" AS ENUM ('firing', 'resolved');

-- CreateEnum
CREATE TYPE "AlertChannelKind" AS ENUM ('webhook', 'slack', 'email');

-- CreateEnum
CREATE TYPE "NotificationState" AS ENUM ('pending', 'delivered', 'failed');

-- CreateTable
CREATE TABLE "AlertRule" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "AlertKind" NOT NULL,
    "severity" "AlertSeverity" NOT NULL,
    "selector" JSONB,
    "forSeconds" INTEGER NOT NULL DEFAULT 0,
    "params" JSONB NOT NULL DEFAULT '{}',
    "groupBy" TEXT,
    "groupWaitSeconds" INTEGER NOT NULL DEFAULT 60,
    "groupIntervalSeconds" INTEGER NOT NULL DEFAULT 300,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AlertRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "subjectKind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "subjectName" TEXT NOT NULL,
    "severity" "AlertSeverity" NOT NULL,
    "state" "AlertState" NOT NULL DEFAULT 'firing',
    "summary" TEXT NOT NULL,
    "groupKey" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "firedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMPTZ(3),
    "acknowledgedAt" TIMESTAMPTZ(3),
    "acknowledgedBy" TEXT,
    "ackNote" TEXT,
    "silenceId" TEXT,
    "notifiedState" "AlertState",
    "openKey" TEXT,

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertSilence" (
    "id" TEXT NOT NULL,
    "ruleName" TEXT,
    "selector" JSONB,
    "comment" TEXT NOT NULL,
    "startsAt" TIMESTAMPTZ(3) NOT NULL,
    "endsAt" TIMESTAMPTZ(3) NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AlertSilence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertGroup" (
    "ruleId" TEXT NOT NULL,
    "groupKey" TEXT NOT NULL,
    "lastNotifiedAt" TIMESTAMPTZ(3),
    "sequence" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "AlertGroup_pkey" PRIMARY KEY ("ruleId","groupKey")
);

-- CreateTable
CREATE TABLE "AlertChannel" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "AlertChannelKind" NOT NULL,
    "settings" JSONB NOT NULL,
    "sealedSecret" TEXT,
    "minSeverity" "AlertSeverity" NOT NULL DEFAULT 'info',
    "rules" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "AlertChannel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertNotification" (
    "id" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "ruleId" TEXT,
    "groupKey" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "payload" JSONB NOT NULL,
    "state" "NotificationState" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimedUntil" TIMESTAMPTZ(3),
    "deliveredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AlertNotification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertDelivery" (
    "id" TEXT NOT NULL,
    "notificationId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" TEXT NOT NULL,
    "statusCode" INTEGER,
    "error" TEXT,
    "durationMs" INTEGER NOT NULL,

    CONSTRAINT "AlertDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertEvaluation" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "routersSeenAt" TIMESTAMPTZ(3),
    "nextDueAt" TIMESTAMPTZ(3),
    "auditCheckedAt" TIMESTAMPTZ(3),
    "auditBroken" TEXT,
    "evaluatedAt" TIMESTAMPTZ(3),

    CONSTRAINT "AlertEvaluation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AlertRule_name_key" ON "AlertRule"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Alert_openKey_key" ON "Alert"("openKey");

-- CreateIndex
CREATE INDEX "Alert_ruleId_groupKey_state_idx" ON "Alert"("ruleId", "groupKey", "state");

-- CreateIndex
CREATE INDEX "Alert_state_notifiedState_idx" ON "Alert"("state", "notifiedState");

-- CreateIndex
CREATE INDEX "Alert_state_firedAt_id_idx" ON "Alert"("state", "firedAt", "id");

-- CreateIndex
CREATE INDEX "Alert_firedAt_id_idx" ON "Alert"("firedAt", "id");

-- CreateIndex
CREATE INDEX "Alert_subjectKind_subjectId_idx" ON "Alert"("subjectKind", "subjectId");

-- CreateIndex
CREATE INDEX "AlertSilence_endsAt_idx" ON "AlertSilence"("endsAt");

-- CreateIndex
CREATE UNIQUE INDEX "AlertChannel_name_key" ON "AlertChannel"("name");

-- CreateIndex
CREATE INDEX "AlertNotification_state_nextAttemptAt_idx" ON "AlertNotification"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "AlertNotification_channelId_createdAt_idx" ON "AlertNotification"("channelId", "createdAt");

-- CreateIndex
CREATE INDEX "AlertDelivery_notificationId_attempt_idx" ON "AlertDelivery"("notificationId", "attempt");

-- AddForeignKey
ALTER TABLE "Alert" ADD CONSTRAINT "Alert_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "AlertRule"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertNotification" ADD CONSTRAINT "AlertNotification_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "AlertChannel"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertDelivery" ADD CONSTRAINT "AlertDelivery_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "AlertNotification"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The rules shipped by default (docs/ALERTS.md); admins edit, disable or remove them.
INSERT INTO "AlertRule" ("id", "name", "kind", "severity", "forSeconds", "params", "groupBy", "updatedAt") VALUES
  (gen_random_uuid()::text, 'router-offline', 'router_offline', 'warning', 300, '{}', 'site', CURRENT_TIMESTAMP),
  (gen_random_uuid()::text, 'drift-detected', 'drift_detected', 'warning', 0, '{}', 'site', CURRENT_TIMESTAMP),
  (gen_random_uuid()::text, 'apply-failed', 'apply_failed', 'warning', 0, '{}', 'site', CURRENT_TIMESTAMP),
  (gen_random_uuid()::text, 'rollout-paused', 'rollout_paused', 'warning', 0, '{}', NULL, CURRENT_TIMESTAMP),
  (gen_random_uuid()::text, 'certificate-expiring', 'certificate_expiring', 'warning', 0, '{"days": 14}', 'site', CURRENT_TIMESTAMP),
  (gen_random_uuid()::text, 'audit-chain-broken', 'audit_chain_broken', 'critical', 0, '{"intervalSeconds": 600}', NULL, CURRENT_TIMESTAMP),
  (gen_random_uuid()::text, 'dependency-unreachable', 'dependency_unreachable', 'critical', 60, '{}', NULL, CURRENT_TIMESTAMP);

INSERT INTO "AlertEvaluation" ("id") VALUES (1);
