-- AlterTable
ALTER TABLE "ApplyResult" ADD COLUMN     "agentResultId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "ApplyResult_routerId_agentResultId_key" ON "ApplyResult"("routerId", "agentResultId");
