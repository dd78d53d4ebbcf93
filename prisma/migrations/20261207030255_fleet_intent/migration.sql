-- CreateTable
CREATE TABLE "RolloutPolicy" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "RolloutPolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FleetAssignment" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "FleetAssignment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FirmwarePolicy" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "FirmwarePolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ManagedResource" (
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "source" TEXT,
    "appliedBy" TEXT NOT NULL,
    "appliedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ManagedResource_pkey" PRIMARY KEY ("kind","name")
);

-- CreateIndex
CREATE UNIQUE INDEX "RolloutPolicy_name_key" ON "RolloutPolicy"("name");

-- CreateIndex
CREATE UNIQUE INDEX "FleetAssignment_name_key" ON "FleetAssignment"("name");

-- CreateIndex
CREATE UNIQUE INDEX "FirmwarePolicy_name_key" ON "FirmwarePolicy"("name");
