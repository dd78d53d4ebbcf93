import path from 'node:path';
import { credentials, getChannelzHandlers, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentServiceClient } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { openDatabase } from '../../../server/storage/index.js';
import { openStream } from '../../support/agents.js';
import { startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';

/** The gRPC servers channelz knows of in this process (test files share one worker). */
const channelzServerCount = () =>
  new Promise<number>((resolve, reject) =>
    getChannelzHandlers().GetServers(
      { request: { start_server_id: '0', max_results: '1000' } } as never,
      (err, value) => (err ? reject(err) : resolve(value?.server?.length ?? 0)),
    ),
  );

/**
 * The agent port runs grpc-js with channelz off, which saves memory per connection; grpc-js's
 * forceShutdown then destroys no session (it walks only those it records for channelz), so
 * the gateway's stop destroys what is still open after its two-second grace itself.
 */
describe('the agent port with channelz off', () => {
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await db?.drop();
  });

  it('registers nothing with channelz, and a stop ends a connection whose stream never said Hello', async () => {
    db = await createPgliteDatabase();
    const serversBefore = await channelzServerCount();
    const { controller } = await startTestController(db);
    // A stream that never says Hello has no agent session: only the connection's end closes it.
    const client = new AgentServiceClient(controller.grpcAddress, credentials.createInsecure());
    const stream = client.connect();
    const silent = new Promise<{ code: number; at: number }>((resolve) => {
      stream.on('error', (err: ServiceError) => resolve({ code: err.code, at: Date.now() }));
      stream.on('end', () => resolve({ code: GrpcStatus.OK, at: Date.now() }));
    });
    stream.on('data', () => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(await channelzServerCount()).toBe(serversBefore);

    const stoppedAt = Date.now();
    await controller.close();
    const ended = await Promise.race([silent, new Promise<undefined>((r) => setTimeout(() => r(undefined), 6_000))]);
    client.close();
    expect(ended, 'the stream was still open 6 s after the stop').toBeDefined();
    expect(ended!.code).not.toBe(GrpcStatus.OK);
    expect(ended!.at - stoppedAt).toBeLessThan(4_000);
  });

  it('records the disconnects of the streams it closes before the database closes', async () => {
    const stopped = await createPgliteDatabase();
    try {
      const { controller, logs } = await startTestController(stopped);
      const agent = openStream(controller.grpcAddress, credentials.createInsecure(), 'agent-of-stopped');
      await agent.welcome;
      await controller.close();
      expect(logs.filter((l) => l.includes('failed to record disconnect'))).toEqual([]);
      const db = await openDatabase({ dataDir: path.join(stopped.dataDir, 'pglite') });
      try {
        const routers = await db.prisma.router.findMany({ select: { identity: true, status: true } });
        expect(routers).toEqual([{ identity: 'agent-of-stopped', status: 'offline' }]);
      } finally {
        await db.close();
      }
    } finally {
      await stopped.drop();
    }
  });
});
