-- CreateTable
CREATE TABLE "OperatorAccount" (
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSignInAt" TIMESTAMPTZ(3),

    CONSTRAINT "OperatorAccount_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "OperatorSession" (
    "idHash" TEXT NOT NULL,
    "accountName" TEXT NOT NULL,
    "csrfToken" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "absoluteExpiresAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "OperatorSession_pkey" PRIMARY KEY ("idHash")
);

-- CreateIndex
CREATE INDEX "OperatorSession_accountName_idx" ON "OperatorSession"("accountName");

-- AddForeignKey
ALTER TABLE "OperatorSession" ADD CONSTRAINT "OperatorSession_accountName_fkey" FOREIGN KEY ("accountName") REFERENCES "OperatorAccount"("name") ON DELETE CASCADE ON UPDATE CASCADE;
