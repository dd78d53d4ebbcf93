import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AgentGateway } from '../../server/agent-gateway/agent-gateway.js';
import type { AgentSession } from '../../server/agent-gateway/agent-session.js';
import { DEFAULT_PROFILE_SPEC } from '../../core/profile-spec.js';
import { DesiredStateDelivery } from '../../server/rollouts/desired-state.js';

/**
 * A rollout batch published on the fleet bus while PostgreSQL is away (simulated here: the
 * query's failure is PostgreSQL's "terminating connection due to administrator command", as a
 * `pg_ctl stop -m fast` gives; test/server/postgres-restart.test.ts stops a real one).
 */
describe('desired states published while the database is away', () => {
  const router = {
    id: 'router-1',
    desiredRolloutId: 'rollout-1',
    assignment: null,
    desiredRevision: {
      id: 'rev-1',
      profileId: 'p-1',
      number: 3,
      spec: DEFAULT_PROFILE_SPEC,
      profile: { name: 'edge' },
    },
  };
  const setup = (failures: number, error: unknown) => {
    let calls = 0;
    const db = {
      router: {
        findMany: async () => {
          calls += 1;
          if (calls <= failures) throw error;
          return [router];
        },
      },
    } as unknown as PrismaClient;
    const sent: unknown[] = [];
    const session = { send: (body: unknown) => void sent.push(body) } as unknown as AgentSession;
    const gateway = { sessions: new Map([['router-1', session]]) } as unknown as AgentGateway;
    const delivery = new DesiredStateDelivery(db, gateway, pino({ level: 'silent' }));
    return { delivery, sent, calls: () => calls };
  };
  const adminShutdown = Object.assign(new Error('terminating connection due to administrator command'), {
    code: '57P01',
  });

  it('are sent once the database answers again, not lost to the outage', async () => {
    const { delivery, sent, calls } = setup(2, adminShutdown);
    await delivery.deliverPublished(['router-1']);
    expect(calls()).toBe(3);
    expect(sent).toEqual([
      expect.objectContaining({ $case: 'desiredState', value: expect.objectContaining({ revision: 3 }) }),
    ]);
  });

  it('are not retried for an error that is not an outage', async () => {
    const { delivery, sent, calls } = setup(1, new Error('column "x" does not exist'));
    await expect(delivery.deliverPublished(['router-1'])).rejects.toThrow(/column/);
    expect(calls()).toBe(1);
    expect(sent).toEqual([]);
  });
});
