-- "Job" names only the onboarding job (docs/DOMAIN.md, Glossary): a command sent to routers is a
-- Command. Renames only: every row, key and index stays.
ALTER TABLE "CommandJob" RENAME TO "Command";
ALTER TYPE "CommandJobState" RENAME TO "CommandState";
ALTER TABLE "Command" RENAME CONSTRAINT "CommandJob_pkey" TO "Command_pkey";
ALTER INDEX "CommandJob_createdAt_id_idx" RENAME TO "Command_createdAt_id_idx";
ALTER INDEX "CommandJob_state_deadline_idx" RENAME TO "Command_state_deadline_idx";

ALTER TABLE "CommandTarget" RENAME COLUMN "jobId" TO "commandId";
ALTER INDEX "CommandTarget_jobId_state_idx" RENAME TO "CommandTarget_commandId_state_idx";
ALTER INDEX "CommandTarget_jobId_updatedAt_idx" RENAME TO "CommandTarget_commandId_updatedAt_idx";
ALTER TABLE "CommandTarget" RENAME CONSTRAINT "CommandTarget_jobId_fkey" TO "CommandTarget_commandId_fkey";
