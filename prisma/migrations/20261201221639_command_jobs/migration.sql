-- CreateEnum
CREATE TYPE "CommandKind" AS ENUM ('re_probe', 're_apply', 'rollback', 'detach', 'check_drift', 'reboot', 'diagnostics');

-- CreateEnum
CREATE TYPE "CommandJobState" AS ENUM ('running', 'completed', 'cancelled');

-- CreateEnum
CREATE TYPE "CommandTargetState" AS ENUM ('queued', 'sent', 'succeeded', 'failed', 'offline', 'timed_out', 'cancelled', 'refused');

-- CreateTable
CREATE TABLE "CommandJob" (
    "id" TEXT NOT NULL,
    "kind" "CommandKind" NOT NULL,
    "selector" JSONB NOT NULL,
    "state" "CommandJobState" NOT NULL DEFAULT 'running',
    "timeoutSeconds" INTEGER NOT NULL,
    "maxInFlight" INTEGER NOT NULL,
    "deadline" TIMESTAMPTZ(3) NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "finishedAt" TIMESTAMPTZ(3),
    "cancelledBy" TEXT,

    CONSTRAINT "CommandJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CommandTarget" (
    "jobId" TEXT NOT NULL,
    "routerId" TEXT NOT NULL,
    "state" "CommandTargetState" NOT NULL DEFAULT 'queued',
    "reason" TEXT,
    "output" TEXT,
    "sections" JSONB,
    "sentAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "CommandTarget_pkey" PRIMARY KEY ("jobId","routerId")
);

-- CreateIndex
CREATE INDEX "CommandJob_createdAt_id_idx" ON "CommandJob"("createdAt", "id");

-- CreateIndex
CREATE INDEX "CommandJob_state_deadline_idx" ON "CommandJob"("state", "deadline");

-- CreateIndex
CREATE INDEX "CommandTarget_jobId_state_idx" ON "CommandTarget"("jobId", "state");

-- CreateIndex
CREATE INDEX "CommandTarget_jobId_updatedAt_idx" ON "CommandTarget"("jobId", "updatedAt");

-- CreateIndex
CREATE INDEX "CommandTarget_routerId_state_idx" ON "CommandTarget"("routerId", "state");

-- AddForeignKey
ALTER TABLE "CommandTarget" ADD CONSTRAINT "CommandTarget_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "CommandJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CommandTarget" ADD CONSTRAINT "CommandTarget_routerId_fkey" FOREIGN KEY ("routerId") REFERENCES "Router"("id") ON DELETE CASCADE ON UPDATE CASCADE;
