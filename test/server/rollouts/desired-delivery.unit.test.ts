import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../../prisma/generated/client/client.js';
import type { AgentGateway } from '../../../server/agent-gateway/agent-gateway.js';
import type { AgentSession } from '../../../server/agent-gateway/agent-session.js';
import { DEFAULT_PROFILE_SPEC } from '../../../core/profile-spec.js';
import { DesiredStateDelivery } from '../../../server/rollouts/desired-state.js';

/** The revision's row as the delivery reads it. */
const revision = { id: 'rev-1', profileId: 'p-1', number: 3, spec: DEFAULT_PROFILE_SPEC, profileName: 'edge' };

/**
 * Routers on their streams here, each wanting revision 3 of "edge". `db` answers the routers'
 * query through `query` (which may fail as the database would) and the revisions' query with
 * the one revision.
 */
function fleetOf(count: number, query: (routers: unknown[]) => Promise<unknown[]>) {
  const routers = Array.from({ length: count }, (_, i) => ({
    id: `router-${i + 1}`,
    desiredRolloutId: 'rollout-1',
    desiredRevisionId: revision.id,
    assignedProfileId: null,
    overrides: null,
  }));
  const sent: string[] = [];
  const sessions = new Map(
    routers.map((r) => [r.id, { send: () => void sent.push(r.id) } as unknown as AgentSession] as const),
  );
  const db = {
    $queryRaw: async (sql: TemplateStringsArray) =>
      sql.join('?').includes('FROM "ProfileRevision"') ? [revision] : query(routers),
  } as unknown as PrismaClient;
  const gateway = { sessions } as unknown as AgentGateway;
  return { delivery: new DesiredStateDelivery(db, gateway, pino({ level: 'silent' })), sent, routers };
}

/**
 * A rollout batch published on the fleet bus while PostgreSQL is away (simulated here: the
 * query's failure is PostgreSQL's "terminating connection due to administrator command", as a
 * `pg_ctl stop -m fast` gives; test/server/postgres-restart.test.ts stops a real one).
 */
describe('desired states published while the database is away', () => {
  const setup = (failures: number, error: unknown) => {
    let calls = 0;
    const fleet = fleetOf(1, async (routers) => {
      calls += 1;
      if (calls <= failures) throw error;
      return routers;
    });
    return { ...fleet, calls: () => calls };
  };
  const adminShutdown = Object.assign(new Error('terminating connection due to administrator command'), {
    code: '57P01',
  });

  it('are sent once the database answers again, not lost to the outage', async () => {
    const { delivery, sent, calls } = setup(2, adminShutdown);
    await delivery.deliverPublished(['router-1']);
    expect(calls()).toBe(3);
    expect(sent).toEqual(['router-1']);
  });

  it('are not retried for an error that is not an outage', async () => {
    const { delivery, sent, calls } = setup(1, new Error('column "x" does not exist'));
    await expect(delivery.deliverPublished(['router-1'])).rejects.toThrow(/column/);
    expect(calls()).toBe(1);
    expect(sent).toEqual([]);
  });
});

describe('a large batch of desired states', () => {
  it('is written a slice per turn of the event loop, so other work (the API) runs in between', async () => {
    const { delivery, sent, routers } = fleetOf(1_000, async (all) => all);
    const sentWhenOthersRan: number[] = [];
    const delivered = delivery.deliverPublished(routers.map((r) => r.id));
    // Work queued behind the delivery's start, as an API request's callback would be.
    for (let i = 0; i < 3; i++) setImmediate(() => sentWhenOthersRan.push(sent.length));
    await delivered;
    expect(sent).toEqual(routers.map((r) => r.id));
    expect(sentWhenOthersRan).toHaveLength(3);
    expect(Math.max(...sentWhenOthersRan)).toBeLessThan(1_000);
  });
});
