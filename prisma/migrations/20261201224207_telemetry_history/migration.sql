-- AlterTable
ALTER TABLE "Router" ADD COLUMN     "seriesKey" SERIAL NOT NULL;

-- CreateTable
CREATE TABLE "TelemetryMinute" (
    "routerKey" INTEGER NOT NULL,
    "minute" INTEGER NOT NULL,
    "coveredMs" INTEGER NOT NULL,
    "setIpIdZeroSeen" INTEGER NOT NULL,
    "setIpIdZeroRewritten" INTEGER NOT NULL,
    "setIpTtlSeen" INTEGER NOT NULL,
    "setIpTtlRewritten" INTEGER NOT NULL,
    "setTcpSynWindowSeen" INTEGER NOT NULL,
    "setTcpSynWindowRewritten" INTEGER NOT NULL,
    "clearTcpSynTsSeen" INTEGER NOT NULL,
    "clearTcpSynTsRewritten" INTEGER NOT NULL,
    "flowsSoftware" INTEGER NOT NULL,
    "flowsHardware" INTEGER NOT NULL,
    "agentRssKib" INTEGER NOT NULL,
    "mode" SMALLINT NOT NULL,
    "programs" SMALLINT NOT NULL,

    CONSTRAINT "TelemetryMinute_pkey" PRIMARY KEY ("routerKey","minute")
);

-- CreateTable
CREATE TABLE "TelemetryBaseline" (
    "routerKey" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "counters" JSONB NOT NULL,
    "latest" JSONB NOT NULL,

    CONSTRAINT "TelemetryBaseline_pkey" PRIMARY KEY ("routerKey")
);

-- CreateTable
CREATE TABLE "TelemetryHour" (
    "routerKey" INTEGER NOT NULL,
    "hour" INTEGER NOT NULL,
    "coveredMs" INTEGER NOT NULL,
    "setIpIdZeroSeen" BIGINT NOT NULL,
    "setIpIdZeroRewritten" BIGINT NOT NULL,
    "setIpTtlSeen" BIGINT NOT NULL,
    "setIpTtlRewritten" BIGINT NOT NULL,
    "setTcpSynWindowSeen" BIGINT NOT NULL,
    "setTcpSynWindowRewritten" BIGINT NOT NULL,
    "clearTcpSynTsSeen" BIGINT NOT NULL,
    "clearTcpSynTsRewritten" BIGINT NOT NULL,
    "flowsSoftware" INTEGER NOT NULL,
    "flowsHardware" INTEGER NOT NULL,
    "agentRssKib" INTEGER NOT NULL,
    "mode" SMALLINT NOT NULL,
    "programs" SMALLINT NOT NULL,

    CONSTRAINT "TelemetryHour_pkey" PRIMARY KEY ("routerKey","hour")
);

-- CreateTable
CREATE TABLE "FleetTelemetryMinute" (
    "minute" INTEGER NOT NULL,
    "mode" SMALLINT NOT NULL,
    "routers" INTEGER NOT NULL,
    "setIpIdZeroSeenRate" DOUBLE PRECISION NOT NULL,
    "setIpIdZeroRewrittenRate" DOUBLE PRECISION NOT NULL,
    "setIpTtlSeenRate" DOUBLE PRECISION NOT NULL,
    "setIpTtlRewrittenRate" DOUBLE PRECISION NOT NULL,
    "setTcpSynWindowSeenRate" DOUBLE PRECISION NOT NULL,
    "setTcpSynWindowRewrittenRate" DOUBLE PRECISION NOT NULL,
    "clearTcpSynTsSeenRate" DOUBLE PRECISION NOT NULL,
    "clearTcpSynTsRewrittenRate" DOUBLE PRECISION NOT NULL,
    "flowsSoftware" BIGINT NOT NULL,
    "flowsHardware" BIGINT NOT NULL,
    "programs" SMALLINT NOT NULL,

    CONSTRAINT "FleetTelemetryMinute_pkey" PRIMARY KEY ("minute","mode")
);

-- CreateTable
CREATE TABLE "FleetTelemetryHour" (
    "hour" INTEGER NOT NULL,
    "mode" SMALLINT NOT NULL,
    "routers" INTEGER NOT NULL,
    "setIpIdZeroSeenRate" DOUBLE PRECISION NOT NULL,
    "setIpIdZeroRewrittenRate" DOUBLE PRECISION NOT NULL,
    "setIpTtlSeenRate" DOUBLE PRECISION NOT NULL,
    "setIpTtlRewrittenRate" DOUBLE PRECISION NOT NULL,
    "setTcpSynWindowSeenRate" DOUBLE PRECISION NOT NULL,
    "setTcpSynWindowRewrittenRate" DOUBLE PRECISION NOT NULL,
    "clearTcpSynTsSeenRate" DOUBLE PRECISION NOT NULL,
    "clearTcpSynTsRewrittenRate" DOUBLE PRECISION NOT NULL,
    "flowsSoftware" BIGINT NOT NULL,
    "flowsHardware" BIGINT NOT NULL,
    "programs" SMALLINT NOT NULL,

    CONSTRAINT "FleetTelemetryHour_pkey" PRIMARY KEY ("hour","mode")
);

-- CreateTable
CREATE TABLE "FleetTelemetryTotal" (
    "mode" SMALLINT NOT NULL,
    "setIpIdZeroSeen" BIGINT NOT NULL DEFAULT 0,
    "setIpIdZeroRewritten" BIGINT NOT NULL DEFAULT 0,
    "setIpTtlSeen" BIGINT NOT NULL DEFAULT 0,
    "setIpTtlRewritten" BIGINT NOT NULL DEFAULT 0,
    "setTcpSynWindowSeen" BIGINT NOT NULL DEFAULT 0,
    "setTcpSynWindowRewritten" BIGINT NOT NULL DEFAULT 0,
    "clearTcpSynTsSeen" BIGINT NOT NULL DEFAULT 0,
    "clearTcpSynTsRewritten" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "FleetTelemetryTotal_pkey" PRIMARY KEY ("mode")
);

-- CreateTable
CREATE TABLE "TelemetryRollupMark" (
    "name" TEXT NOT NULL,
    "through" INTEGER NOT NULL,

    CONSTRAINT "TelemetryRollupMark_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "TelemetryMinute_minute_idx" ON "TelemetryMinute" USING BRIN ("minute");

-- CreateIndex
CREATE INDEX "TelemetryHour_hour_idx" ON "TelemetryHour" USING BRIN ("hour");

-- CreateIndex
CREATE UNIQUE INDEX "Router_seriesKey_key" ON "Router"("seriesKey");
