import type { Controller } from '../../server/controller.js';
import { authedFetch } from './controller.js';

/**
 * A few real resources for the API fuzzer to aim valid requests at (a router, a profile, a
 * rollout), and the values naming them by parameter or field name. The SSH login points at a
 * closed local port so that onboarding jobs the fuzzer starts fail at once.
 */
export async function seedFuzzFleet(controller: Controller, token: string): Promise<Record<string, unknown[]>> {
  const api = authedFetch(controller.httpUrl, token);
  const router = await controller.db.prisma.router.create({ data: { name: 'fuzz-r1', identity: 'test:fuzz-1' } });
  const profile = await api('/v1/profiles/home', {
    method: 'PUT',
    body: { spec: { l3Rewrite: { ttl: { value: 65 } } } },
  });
  if (profile.status !== 201) throw new Error(`seeding the profile failed: ${profile.status}`);
  const rollout = await api<{ id: string }>('/v1/rollouts', {
    method: 'POST',
    body: { profile: 'home', selector: { ids: [router.id] } },
  });
  if (rollout.status !== 201)
    throw new Error(`seeding the rollout failed: ${rollout.status} ${JSON.stringify(rollout.body)}`);
  return {
    id: [router.id, rollout.body.id],
    name: ['home'],
    profile: ['home'],
    revision: ['1'],
    host: ['127.0.0.1'],
    port: [9],
  };
}
