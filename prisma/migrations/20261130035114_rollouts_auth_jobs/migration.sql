-- CreateEnum
CREATE TYPE "RolloutState" AS ENUM ('scheduled', 'running', 'paused', 'completed', 'aborted');

-- CreateEnum
CREATE TYPE "RolloutTargetState" AS ENUM ('pending', 'sent', 'applied', 'failed', 'rolled_back', 'skipped');

-- CreateEnum
CREATE TYPE "JobState" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'cancelled');

-- AlterTable
ALTER TABLE "Router" ADD COLUMN     "desiredRevisionId" TEXT,
ADD COLUMN     "desiredRolloutId" TEXT;

-- CreateTable
CREATE TABLE "Rollout" (
    "id" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "selector" JSONB NOT NULL,
    "strategy" JSONB NOT NULL,
    "state" "RolloutState" NOT NULL DEFAULT 'scheduled',
    "currentBatch" INTEGER NOT NULL DEFAULT 0,
    "batchCount" INTEGER NOT NULL,
    "pauseReason" TEXT,
    "startAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Rollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RolloutTarget" (
    "rolloutId" TEXT NOT NULL,
    "routerId" TEXT NOT NULL,
    "batch" INTEGER NOT NULL,
    "state" "RolloutTargetState" NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "sentAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "RolloutTarget_pkey" PRIMARY KEY ("rolloutId","routerId")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "scopes" TEXT[],
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "lastUsedAt" TIMESTAMPTZ(3),
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EnrollmentToken" (
    "id" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "routerName" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "usedByRouterId" TEXT,
    "revokedAt" TIMESTAMPTZ(3),
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EnrollmentToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentCertificate" (
    "serial" TEXT NOT NULL,
    "routerId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "notBefore" TIMESTAMPTZ(3) NOT NULL,
    "notAfter" TIMESTAMPTZ(3) NOT NULL,
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AgentCertificate_pkey" PRIMARY KEY ("serial")
);

-- CreateTable
CREATE TABLE "RouterCredential" (
    "routerId" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL DEFAULT 22,
    "username" TEXT NOT NULL,
    "authType" TEXT NOT NULL,
    "secretCiphertext" TEXT NOT NULL,
    "hostKeyFingerprint" TEXT,
    "proxyIdentity" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "RouterCredential_pkey" PRIMARY KEY ("routerId")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" "JobState" NOT NULL DEFAULT 'queued',
    "step" TEXT,
    "percent" INTEGER NOT NULL DEFAULT 0,
    "message" TEXT,
    "input" JSONB NOT NULL,
    "result" JSONB,
    "error" TEXT,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Rollout_state_startAt_idx" ON "Rollout"("state", "startAt");

-- CreateIndex
CREATE INDEX "RolloutTarget_rolloutId_batch_state_idx" ON "RolloutTarget"("rolloutId", "batch", "state");

-- CreateIndex
CREATE INDEX "RolloutTarget_routerId_state_idx" ON "RolloutTarget"("routerId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "EnrollmentToken_tokenHash_key" ON "EnrollmentToken"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "AgentCertificate_fingerprint_key" ON "AgentCertificate"("fingerprint");

-- CreateIndex
CREATE INDEX "AgentCertificate_routerId_idx" ON "AgentCertificate"("routerId");

-- CreateIndex
CREATE INDEX "Job_kind_state_idx" ON "Job"("kind", "state");

-- AddForeignKey
ALTER TABLE "Router" ADD CONSTRAINT "Router_desiredRevisionId_fkey" FOREIGN KEY ("desiredRevisionId") REFERENCES "ProfileRevision"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "ProfileRevision"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutTarget" ADD CONSTRAINT "RolloutTarget_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutTarget" ADD CONSTRAINT "RolloutTarget_routerId_fkey" FOREIGN KEY ("routerId") REFERENCES "Router"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentCertificate" ADD CONSTRAINT "AgentCertificate_routerId_fkey" FOREIGN KEY ("routerId") REFERENCES "Router"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RouterCredential" ADD CONSTRAINT "RouterCredential_routerId_fkey" FOREIGN KEY ("routerId") REFERENCES "Router"("id") ON DELETE CASCADE ON UPDATE CASCADE;
