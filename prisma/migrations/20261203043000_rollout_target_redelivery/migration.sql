-- AlterTable
ALTER TABLE "RolloutTarget" ADD COLUMN "redeliveredAt" TIMESTAMPTZ(3);
