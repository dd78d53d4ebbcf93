import { describe, expect, it } from 'vitest';
import { auditTargetOf } from '../../../web-admin/src/pages/audit/audit-target.js';

describe("how the audit timeline names an event's subject", () => {
  const router = '3f0c6a4e-9b1d-4c2e-8a57-0d6b1f2e9c44';

  it('names a router by its name, whole, links its page and keeps the id on hover', () => {
    expect(auditTargetOf({ targetType: 'router', targetId: router, targetName: 'lyon-office-gateway-1' })).toEqual({
      label: 'router lyon-office-gateway-1',
      path: `/routers/${router}`,
      title: router,
    });
  });

  it('never cuts a long profile name', () => {
    const name = 'ttl64-office-hours-with-hardware-offload';
    expect(auditTargetOf({ targetType: 'profile', targetId: name, targetName: name })).toEqual({
      label: `profile ${name}`,
      path: null,
      title: undefined,
    });
  });

  it('falls back to the whole id when the API names nothing', () => {
    expect(auditTargetOf({ targetType: 'router', targetId: router, targetName: null }).label).toBe(`router ${router}`);
    expect(auditTargetOf({ targetType: 'router', targetId: router }).label).toBe(`router ${router}`);
  });

  it('links commands, rollouts and onboarding jobs to their pages', () => {
    expect(auditTargetOf({ targetType: 'command_job', targetId: 'j1', targetName: 'rollback on lyon-1' })).toEqual({
      label: 'command_job rollback on lyon-1',
      path: '/commands/j1',
      title: 'j1',
    });
    expect(auditTargetOf({ targetType: 'rollout', targetId: 'r/1', targetName: 'home@2' }).path).toBe(
      '/rollouts/r%2F1',
    );
    expect(auditTargetOf({ targetType: 'job', targetId: 'o1', targetName: '10.0.0.1' }).path).toBe(
      '/onboarding?jobs=o1',
    );
  });

  it('shows the type alone for an event without a subject', () => {
    expect(auditTargetOf({ targetType: 'account', targetId: null })).toEqual({
      label: 'account',
      path: null,
      title: undefined,
    });
  });
});
