-- CreateEnum
CREATE TYPE "FirmwareStep" AS ENUM ('checking', 'transferring', 'verifying', 'testing', 'flashing');

-- AlterEnum (PostgreSQL 12 and later add enum values inside a transaction; none uses them here)
ALTER TYPE "RolloutTargetState" ADD VALUE 'upgraded';
ALTER TYPE "RolloutTargetState" ADD VALUE 'unconfirmed';

-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "firmwareImageId" TEXT,
ADD COLUMN     "firmwareOptions" JSONB,
ALTER COLUMN "revisionId" DROP NOT NULL;

-- AlterTable
ALTER TABLE "RolloutTarget" ADD COLUMN     "bootIdBefore" TEXT,
ADD COLUMN     "bytesDone" BIGINT,
ADD COLUMN     "firmwareStep" "FirmwareStep",
ADD COLUMN     "flashedAt" TIMESTAMPTZ(3),
ADD COLUMN     "releaseBefore" TEXT,
ADD COLUMN     "stepAt" TIMESTAMPTZ(3),
ADD COLUMN     "stepDetail" TEXT;

-- AlterTable
ALTER TABLE "Router" ADD COLUMN     "bootId" TEXT;

-- CreateTable
CREATE TABLE "FirmwareImage" (
    "id" TEXT NOT NULL,
    "sha256" TEXT,
    "fileName" TEXT NOT NULL,
    "sizeBytes" BIGINT NOT NULL DEFAULT 0,
    "metadata" JSONB,
    "release" TEXT,
    "revision" TEXT,
    "target" TEXT,
    "signed" BOOLEAN NOT NULL DEFAULT false,
    "uploadedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "readyAt" TIMESTAMPTZ(3),
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "FirmwareImage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FirmwareImageChunk" (
    "imageId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "FirmwareImageChunk_pkey" PRIMARY KEY ("imageId","seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "FirmwareImage_sha256_key" ON "FirmwareImage"("sha256");

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_firmwareImageId_fkey" FOREIGN KEY ("firmwareImageId") REFERENCES "FirmwareImage"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FirmwareImageChunk" ADD CONSTRAINT "FirmwareImageChunk_imageId_fkey" FOREIGN KEY ("imageId") REFERENCES "FirmwareImage"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A rollout carries a profile revision or a firmware image, never both, never neither.
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_carries_one_thing"
  CHECK (("revisionId" IS NULL) <> ("firmwareImageId" IS NULL));
