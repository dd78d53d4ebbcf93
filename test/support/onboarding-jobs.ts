import { expect } from 'vitest';
import { eventually, type authedFetch } from './controller.js';

type Api = ReturnType<typeof authedFetch>;

/** POST /v1/onboarding, expecting the job to be accepted; returns its id. */
export async function startOnboarding(api: Api, body: Record<string, unknown>): Promise<string> {
  const res = await api('/v1/onboarding', { method: 'POST', body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.jobId as string;
}

/** The job once it has ended (succeeded, failed or cancelled). */
export async function jobFinished(api: Api, jobId: string, timeoutMs = 60_000) {
  return eventually(
    async () => {
      const j = (await api(`/v1/jobs/${jobId}`)).body;
      return ['succeeded', 'failed', 'cancelled'].includes(j.state) ? j : null;
    },
    timeoutMs,
    `job ${jobId} to finish`,
  );
}
