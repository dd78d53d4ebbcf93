import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { AgentGateway } from './agent-gateway/agent-gateway.js';
import { createHttpApi } from './http-api.js';
import { AuditLog } from './audit/audit-log.js';
import { ApiTokens } from './auth/api-tokens.js';
import { bootstrapAdminToken } from './auth/bootstrap-admin.js';
import type { OperatorAccounts } from './auth/operator-accounts.js';
import type { OperatorSessions } from './auth/operator-sessions.js';
import { startSecurity, type ControllerSecurity } from './auth/security.js';
import { DEFAULT_FIRMWARE_MAX_BYTES, DEFAULT_REDIS_PREFIX, type ControllerConfig } from './config.js';
import { RouterDirectory } from './fleet/router-directory.js';
import { RouterRegistry } from './fleet/router-registry.js';
import { InProcessFleetBus, type FleetBus } from './cluster/fleet-bus.js';
import { InProcessTaskQueue } from './cluster/in-process-task-queue.js';
import type { TaskQueue } from './cluster/task-queue.js';
import { PlanPreview } from './fleet/plan-preview.js';
import { ProfileStore } from './profiles/profile-store.js';
import { ControllerMetrics } from './routes/metrics/index.js';
import { Alerting } from './alerts/alerting.js';
import { DesiredStateDelivery } from './rollouts/desired-state.js';
import { RolloutEngine, SWEEP_TASK } from './rollouts/rollout-engine.js';
import { openDatabase, type Database } from './storage/index.js';
import { LOG_REDACTION } from './secrets/redaction.js';
import { OnboardingService, type OnboardingOptions } from './onboarding/onboarding-service.js';
import { CommandDelivery } from './commands/command-delivery.js';
import { COMMAND_SWEEP_TASK, CommandDispatcher } from './commands/command-dispatch.js';
import { CommandService } from './commands/command-service.js';
import { OnboardingTargetPolicy } from './onboarding/target-policy.js';
import { loadDataKey, SecretBox } from './secrets/secret-box.js';
import { buildConsoleWhenMissing, DEFAULT_CONSOLE_DIR } from './console/console-build.js';
import { TelemetryHistory } from './telemetry/telemetry-history.js';
import { FirmwareImageStore } from './firmware/image-store.js';
import { FirmwareRollouts } from './firmware/firmware-rollouts.js';
import { UpgradeDelivery } from './firmware/upgrade-delivery.js';
import { afterUpgradeCommands } from './firmware/after-upgrade.js';

export interface Controller {
  config: ControllerConfig;
  db: Database;
  gateway: AgentGateway;
  http: FastifyInstance;
  registry: RouterRegistry;
  tokens: ApiTokens;
  /** Operator accounts and their console sessions. */
  accounts: OperatorAccounts;
  sessions: OperatorSessions;
  /** CA, enrollment, agent certificates, secrets at rest. */
  security: ControllerSecurity;
  profiles: ProfileStore;
  rollouts: RolloutEngine;
  /** Firmware images (uploads, the bytes agents download). */
  images: FirmwareImageStore;
  /** Commands: re-probe, re-apply, rollback, detach, check drift, reboot, diagnostics. */
  commands: CommandService;
  tasks: TaskQueue;
  /** Onboarding routers over SSH, with the controller-hosted proxy agents. */
  onboarding: OnboardingService;
  /** Telemetry history: the batch writer, the rollup and retention job, the series reads. */
  telemetry: TelemetryHistory;
  alerting: Alerting;
  /** Set on the first start of an empty database: where the bootstrap admin token was written. */
  adminTokenFile: string | null;
  /** http://host:port of the REST API as actually bound (port 0 picks a free one; "" when started not to listen). */
  httpUrl: string;
  /** host:port of the gRPC agent endpoint as actually bound ("" on a replica that serves no agents). */
  grpcAddress: string;
  close(): Promise<void>;
}

/** pino, with the fields that may carry secrets redacted wherever they appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      ...LOG_REDACTION,
    },
  });
}

/**
 * Starts one controller replica: storage (migrated), the agent gateway (gRPC) and the REST
 * API. Several replicas may share one PostgreSQL; every cross-replica fact (who is online,
 * the audit chain) lives in the database, never only in this process.
 */
export async function startController(
  config: ControllerConfig,
  logger: Logger = createLogger(config.logLevel),
  extras: {
    onboarding?: OnboardingOptions;
    /**
     * false: neither port is opened (no agent gateway, `httpUrl` and `grpcAddress` empty); the
     * API answers through `http.inject`, for tests of the API that need no agent.
     */
    listen?: boolean;
  } = {},
): Promise<Controller> {
  const listen = extras.listen !== false;
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : `${config.dataDir}/pglite`,
    pgliteTemplate: true,
    poolSize: config.dbPoolSize,
    logger: logger.child({ component: 'storage' }),
  });
  logger.info({ storage: db.kind, location: db.location }, 'storage ready');

  const audit = new AuditLog(db.prisma);
  const tokens = new ApiTokens(db.prisma, audit);
  const adminTokenFile = await bootstrapAdminToken(tokens, config.dataDir, logger.child({ component: 'auth' }));
  const security = await startSecurity(config, db.prisma, audit, tokens, logger.child({ component: 'security' }));
  const telemetry = new TelemetryHistory(db.prisma, logger.child({ component: 'telemetry' }), config.telemetry);
  const registry = new RouterRegistry(
    db.prisma,
    audit,
    { autoRegister: config.autoRegister, telemetry: telemetry.writer },
    logger.child({ component: 'fleet' }),
  );
  const directory = new RouterDirectory(db);
  const profiles = new ProfileStore(db.prisma, audit);
  const previews = new PlanPreview(db.prisma);

  // Jobs and cross-replica notifications: Redis when configured, this process otherwise.
  let tasks: TaskQueue;
  let bus: FleetBus;
  if (config.redisUrl) {
    // Loaded only here: bullmq and ioredis cost the embedded default ~0.5 s of start-up.
    const [{ BullMqTaskQueue }, { RedisFleetBus }] = await Promise.all([
      import('./cluster/bullmq-task-queue.js'),
      import('./cluster/redis-fleet-bus.js'),
    ]);
    tasks = new BullMqTaskQueue(config.redisUrl, logger.child({ component: 'tasks' }), {
      prefix: config.redisPrefix ?? DEFAULT_REDIS_PREFIX,
      works: config.runTasks !== false,
    });
    const redisBus = new RedisFleetBus(
      config.redisUrl,
      logger.child({ component: 'bus' }),
      config.redisPrefix ?? DEFAULT_REDIS_PREFIX,
    );
    await redisBus.start();
    bus = redisBus;
  } else {
    tasks = new InProcessTaskQueue(logger.child({ component: 'tasks' }));
    bus = new InProcessFleetBus();
  }
  const firmwareLog = logger.child({ component: 'firmware' });
  const images = new FirmwareImageStore(db.prisma, audit, config.firmwareMaxBytes ?? DEFAULT_FIRMWARE_MAX_BYTES);
  const abandoned = await images.removeAbandonedUploads();
  if (abandoned) firmwareLog.warn({ uploads: abandoned }, 'removed firmware uploads a stopped replica left unfinished');
  // The commands after an upgrade need the command service, made below; called only once running.
  let upgradeFollowUp: (routerIds: string[]) => Promise<void> = async () => undefined;
  const firmware = new FirmwareRollouts({
    db: db.prisma,
    audit,
    bus,
    log: firmwareLog,
    kick: (rolloutId): Promise<void> => rollouts.kick(rolloutId),
    afterUpgrade: (routerIds) => upgradeFollowUp(routerIds),
  });
  const rollouts: RolloutEngine = new RolloutEngine(
    db.prisma,
    audit,
    tasks,
    bus,
    logger.child({ component: 'rollouts' }),
    firmware,
  );
  registry.onApplyResult((results) => rollouts.onApplyResults(results));
  const gateway = new AgentGateway(
    registry,
    {
      host: config.grpcHost,
      port: config.grpcPort,
      heartbeatIntervalSeconds: config.heartbeatIntervalSeconds,
      missedHeartbeatsBeforeOffline: config.missedHeartbeatsBeforeOffline,
      maxPendingHellos: config.maxPendingHellos,
      maxHandshakingConnections: config.maxHandshakingConnections,
      maxWaitingConnections: config.maxWaitingConnections,
      handshakeTimeoutSeconds: config.handshakeTimeoutSeconds,
      admissionRatePerSecond: config.agentAdmissionRate,
      ...security.gateway,
    },
    logger.child({ component: 'agent-gateway' }),
  );
  const delivery = new DesiredStateDelivery(db.prisma, gateway, logger.child({ component: 'delivery' }));
  // Not thrown away: a database away at that moment would otherwise end the process (unhandled rejection).
  bus.onDesired(
    (ids) =>
      void delivery
        .deliverPublished(ids)
        .catch((err: unknown) => logger.error({ err }, 'sending desired states failed')),
  );
  bus.onResubscribed(
    () =>
      void delivery.catchUp().catch((err: unknown) => logger.error({ err }, 'catching up on desired states failed')),
  );
  const commandLog = logger.child({ component: 'commands' });
  const dispatcher = new CommandDispatcher(db.prisma, audit, tasks, bus, commandLog);
  const commands = new CommandService(db.prisma, audit, dispatcher);
  const commandDelivery = new CommandDelivery(db.prisma, gateway, dispatcher, commandLog);
  upgradeFollowUp = afterUpgradeCommands(commands, firmwareLog);
  gateway.firmware = images;
  const upgrades = new UpgradeDelivery(db.prisma, gateway, firmware, firmwareLog);
  bus.onUpgrades(
    (message) =>
      void upgrades
        .deliver(message)
        .catch((err: unknown) => firmwareLog.error({ err, rolloutId: message.rolloutId }, 'sending an upgrade failed')),
  );
  bus.onCommands(
    (message) =>
      void commandDelivery
        .deliver(message)
        .catch((err: unknown) => commandLog.error({ err, commandId: message.commandId }, 'sending a command failed')),
  );
  gateway.on({
    connected: (session, hello) => {
      const applied = hello.applied?.profile
        ? { profile: hello.applied.profile, revision: hello.applied.revision }
        : undefined;
      delivery
        .onConnected(session.routerId, applied, session.startedAt)
        .catch((err: unknown) => logger.error({ err }, 'desired state on connect failed'));
      dispatcher
        .onConnected(session.routerId)
        .catch((err: unknown) => commandLog.error({ err }, 'commands on connect failed'));
      upgrades
        .onConnected(session.routerId, hello)
        .catch((err: unknown) => firmwareLog.error({ err }, 'firmware upgrade on connect failed'));
    },
    // The agent's results from while it was away are stored by then (AgentGatewayEvents.caughtUp).
    caughtUp: (session) =>
      void delivery
        .onCaughtUp(session.routerId, session.startedAt)
        .catch((err: unknown) => logger.error({ err }, 'desired state after reconnect failed')),
    commandResult: (routerId, result) => commandDelivery.recordResult(routerId, result),
    firmwareProgress: (session, progress) => firmware.recordProgress(session.routerId, session.identity, progress),
  });
  const metrics = new ControllerMetrics(
    db.prisma,
    gateway,
    tasks,
    logger.child({ component: 'metrics' }),
    config.metrics,
  );
  registry.onApplyResult(async (results) => {
    for (const r of results) metrics.observeApply(r.status, r.durationSeconds);
  });
  // The data key again (startSecurity keeps its SecretBox private): onboarding's and alert channels' secrets.
  const box = new SecretBox(
    await loadDataKey({ dataDir: config.dataDir, dataKey: security.settings.dataKey }),
    SecretBox.fromBase64(security.settings.previousDataKeys),
  );
  const alerting = await Alerting.open(db, audit, box, logger.child({ component: 'alerts' }), config);
  // The address agents are told: the enrollment API's answer, what onboarding installs.
  let agentAddress = config.agentAddress ?? '';
  const onboarding = new OnboardingService({
    db: db.prisma,
    audit,
    tasks,
    security,
    box,
    grpcAddress: () => agentAddress,
    dataDir: config.dataDir,
    log: logger.child({ component: 'onboarding' }),
    targets: new OnboardingTargetPolicy(config.onboardingAllow, extras.onboarding?.resolveHost),
    options: extras.onboarding,
  });
  const consoleDir = config.console?.distDir ?? DEFAULT_CONSOLE_DIR;
  const consoleBuild =
    consoleDir && config.console?.buildWhenMissing !== false
      ? buildConsoleWhenMissing(consoleDir, logger.child({ component: 'console' }))
      : undefined;
  const http = await createHttpApi({
    ...security.http,
    onboarding,
    directory,
    tokens,
    profiles,
    previews,
    rollouts,
    images,
    commands,
    audit,
    tasks,
    gateway,
    metrics,
    telemetry,
    alerting,
    db: db.prisma,
    logger: logger.child({ component: 'http' }),
    limits: config.http,
    fleetName: config.fleetName,
    console: consoleDir ? { distDir: consoleDir, building: consoleBuild?.building } : undefined,
  });

  let grpcPort: number;
  try {
    await tasks.start();
    const sweepMs = Math.max(1_000, Math.min(5_000, config.heartbeatIntervalSeconds * 1000));
    await tasks.every(SWEEP_TASK, sweepMs);
    await tasks.every(COMMAND_SWEEP_TASK, sweepMs);
    await telemetry.schedule(tasks);
    if (config.runTasks !== false) alerting.start();
    alerting.watchDependencies();
    // The API's plugins and route schemas compile first: seconds of CPU that, with the agent
    // port already open, let a returning fleet's connections overflow the accept queue. The
    // API then answers before the agent port opens: with the fleet's handshakes holding the
    // loop, its listen took 11 s in a 10,008-agent restart, long enough for a liveness probe
    // to take the controller for dead.
    await http.ready();
    // What the API tells agents meanwhile: the configured port (0, in tests: once it is open).
    if (!agentAddress && config.serveAgents !== false && config.grpcPort)
      agentAddress = `${config.grpcHost}:${config.grpcPort}`;
    if (listen) await http.listen({ host: config.httpHost, port: config.httpPort });
    // A replica that serves no agents never listens for them (WRTFLEET_SERVE_AGENTS=false).
    grpcPort = config.serveAgents === false || !listen ? 0 : await gateway.start();
  } catch (err) {
    await gateway.stop().catch(() => {});
    await alerting.stop().catch(() => {});
    await telemetry.close().catch(() => {});
    await http.close().catch(() => {});
    await tasks.close().catch(() => {});
    await bus.close().catch(() => {});
    await db.close();
    throw err;
  }

  // Agents that vanish without closing their stream (power cut, a crashed replica) are
  // marked offline once they have been silent for the allowed number of heartbeats.
  registry.sweepSilentRouters(config.heartbeatIntervalSeconds * 1000 * config.missedHeartbeatsBeforeOffline);

  const httpUrl = listen ? `http://${config.httpHost}:${(http.server.address() as { port: number }).port}` : '';
  const grpcAddress = grpcPort ? `${config.grpcHost}:${grpcPort}` : '';
  agentAddress ||= grpcAddress;
  security.attach(gateway, () => agentAddress);
  await onboarding.start();
  if (config.runTasks === false)
    logger.warn(
      'WRTFLEET_RUN_TASKS=false: this replica runs no background task; rollouts, sweeps and command timeouts advance only while another replica on this Redis runs them',
    );
  logger.info(
    {
      httpUrl,
      console: `${httpUrl}/`,
      grpcAddress: grpcAddress || 'none (WRTFLEET_SERVE_AGENTS=false)',
      tasks: config.runTasks === false ? 'queued for other replicas (WRTFLEET_RUN_TASKS=false)' : tasks.kind,
      agentAddress,
      docs: `${httpUrl}/docs`,
    },
    'controller listening',
  );

  let closing: Promise<void> | undefined;
  return {
    config,
    db,
    gateway,
    http,
    registry,
    tokens,
    accounts: security.accounts,
    sessions: security.sessions,
    security,
    profiles,
    rollouts,
    images,
    commands,
    tasks,
    onboarding,
    telemetry,
    alerting,
    adminTokenFile,
    httpUrl,
    grpcAddress,
    close() {
      closing ??= (async () => {
        security.stop();
        await alerting.stop();
        await onboarding.close();
        await gateway.stop();
        await registry.close();
        // After the gateway: no sample arrives once the last ones are written.
        await telemetry.close();
        await http.close();
        await tasks.close();
        await bus.close();
        await db.close();
      })();
      return closing;
    },
  };
}
