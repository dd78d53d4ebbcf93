import { createHash } from 'node:crypto';
import {
  credentials as grpcCredentials,
  Metadata,
  status as GrpcStatus,
  type ChannelCredentials,
  type ServiceError,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerChannelOptions } from '../../agent/enrollment/controller-server-name.js';
import { AgentServiceClient } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { Facts } from '../../proto/gen/wrtfleet/agent/v1/router.js';
import type { Controller } from '../../server/controller.js';
import { enrollTestAgent } from '../support/agents.js';
import { eventually, startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { ARCHER_C7_2410, sysupgradeImage } from '../support/firmware-images.js';

/**
 * DownloadFirmware under mutual TLS: the bytes go only to the router a running upgrade targets,
 * proven by its own client certificate. Another enrolled router claiming its identity, a call
 * naming no router, and a connection without a certificate get nothing.
 */
describe('firmware downloads are bound to the router certificate', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startTestController>>['fetch'];
  let sha256: string;
  let image: Buffer;
  const clients: AgentServiceClient[] = [];

  const client = (credentials: ChannelCredentials) => {
    const c = new AgentServiceClient(controller.grpcAddress, credentials, {
      ...controllerChannelOptions(controller.grpcAddress),
      'grpc.use_local_subchannel_pool': 1,
    });
    clients.push(c);
    return c;
  };
  const download = (c: AgentServiceClient, identity: string | null) =>
    new Promise<Buffer | ServiceError>((resolve) => {
      const metadata = new Metadata();
      if (identity !== null) metadata.set('wrtfleet-identity', identity);
      const call = c.downloadFirmware({ sha256, offset: 0 }, metadata);
      const parts: Buffer[] = [];
      call.on('data', (chunk: { data: Uint8Array }) => parts.push(Buffer.from(chunk.data)));
      call.on('error', (err: ServiceError) => resolve(err));
      call.on('end', () => resolve(Buffer.concat(parts)));
    });

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
    image = sysupgradeImage(ARCHER_C7_2410);
    sha256 = createHash('sha256').update(image).digest('hex');
    await controller.images.upload([image], 'archer.bin', { actor: 'test' });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await controller?.close();
    await db?.drop();
  });

  it('serves the upgrading router and no one else', async () => {
    const target = await enrollTestAgent(controller, 'fw-target');
    const other = await enrollTestAgent(controller, 'fw-other');
    const targetClient = client(target.channelCredentials);
    // The target says Hello so that it is online and its upgrade is sent.
    const stream = targetClient.connect();
    stream.on('error', () => undefined);
    stream.write({
      seq: 1,
      sentAt: new Date(),
      body: {
        $case: 'hello',
        value: {
          router: { identity: 'fw-target', name: 'fw-target' },
          agent: { version: 'test', placement: 2, proxyHost: '' },
          facts: Facts.fromPartial({
            boardName: ARCHER_C7_2410.board,
            openwrt: { release: '23.05.3', target: ARCHER_C7_2410.target, revision: 'r23809-234f1a2efa', arch: '' },
          }),
          capabilities: undefined,
          applied: undefined,
          live: undefined,
          bootId: 'boot-1',
        },
      },
    });
    await eventually(
      async () =>
        (await controller.db.prisma.router.findUnique({ where: { identity: 'fw-target' } }))?.status === 'online',
    );
    const routerId = (await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: 'fw-target' } })).id;
    const created = await api('/v1/rollouts', {
      method: 'POST',
      body: { firmware: { image: sha256 }, selector: { ids: [routerId] }, strategy: { canary: 0 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(
      async () => (await controller.db.prisma.rolloutTarget.count({ where: { routerId, state: 'sent' } })) === 1,
    );

    expect(Buffer.compare((await download(targetClient, 'fw-target')) as Buffer, image)).toBe(0);
    // Another router's certificate claiming the target's identity.
    const otherClient = client(other.channelCredentials);
    expect(((await download(otherClient, 'fw-target')) as ServiceError).code).toBe(GrpcStatus.PERMISSION_DENIED);
    // Its own identity: it is not being upgraded.
    expect(((await download(otherClient, 'fw-other')) as ServiceError).code).toBe(GrpcStatus.PERMISSION_DENIED);
    // No identity named.
    expect(((await download(targetClient, null)) as ServiceError).code).toBe(GrpcStatus.INVALID_ARGUMENT);
    const anonymous = client(grpcCredentials.createSsl(Buffer.from(controller.security.pki!.caCertificatePem)));
    // TLS without a client certificate: refused in the handshake or by the call's check, no bytes.
    const refused = await download(anonymous, 'fw-target');
    expect(Buffer.isBuffer(refused)).toBe(false);
    expect([GrpcStatus.UNAVAILABLE, GrpcStatus.UNAUTHENTICATED]).toContain((refused as ServiceError).code);
    stream.cancel();
  });
});
