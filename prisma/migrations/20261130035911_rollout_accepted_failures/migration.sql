-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "acceptedFailures" INTEGER NOT NULL DEFAULT 0;
