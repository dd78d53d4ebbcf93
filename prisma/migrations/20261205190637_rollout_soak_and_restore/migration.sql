-- Soak, health gates and promote (new states, the soak and the gate that paused), and what each
-- rollout target found on its router before the claim, so that an abort can give it back.

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "RolloutState" ADD VALUE 'soaking';
ALTER TYPE "RolloutState" ADD VALUE 'awaiting_approval';

-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "gatesWaivedBatch" INTEGER,
ADD COLUMN     "pauseGate" TEXT,
ADD COLUMN     "soakBaseline" JSONB,
ADD COLUMN     "soakUntil" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "RolloutTarget" ADD COLUMN     "desiredSetAt" TIMESTAMPTZ(3),
ADD COLUMN     "priorAssignment" JSONB,
ADD COLUMN     "priorDesiredRevisionId" TEXT,
ADD COLUMN     "priorDesiredRolloutId" TEXT;
