/**
 * A failed onboarding job says where it failed: the Job row keeps the step (and percent) it
 * stopped at, with its error, instead of "done"; a succeeded one ends at "done", 100 %.
 * The failure is injected at a step (the `beforeStep` test hook) so no SSH router is needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { StepFailure } from '../../../server/onboarding/job-failure.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';

describe('REST: a failed onboarding job keeps the step it failed at', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db));
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('shows step connect, its error and no 100 %', async () => {
    controller.onboarding.options.beforeStep = (_id, step) => {
      if (step === 'connect') throw new StepFailure('connection refused by 10.0.0.9:22');
    };
    const started = await api('/v1/onboarding', {
      method: 'POST',
      body: { host: '10.0.0.9', password: 'not-kept', placement: 'proxy', tags: ['site:lab'] },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.jobId as string;
    const job = await eventually(async () => {
      const r = await api(`/v1/jobs/${id}`);
      return r.body.state === 'failed' ? r.body : null;
    });
    expect(job).toMatchObject({
      state: 'failed',
      step: 'connect',
      error: 'connection refused by 10.0.0.9:22',
      input: { host: '10.0.0.9', port: 22, user: 'root', authType: 'password', placement: 'proxy', tags: ['site:lab'] },
    });
    expect(job.percent).toBeLessThan(100);
    // The credential is never kept with the job: a retry has to be given it again.
    expect(JSON.stringify(job)).not.toContain('not-kept');
    const stored = await controller.db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(stored)).not.toContain('not-kept');
  });
});
