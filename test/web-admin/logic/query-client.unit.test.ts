import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../../web-admin/src/api/api-error.js';
import { createConsoleQueryClient } from '../../../web-admin/src/api/query-client.js';

describe("the console's query cache", () => {
  it('retries a read once when the controller did not answer, never after an answer', async () => {
    const client = createConsoleQueryClient();
    client.setDefaultOptions({ queries: { ...client.getDefaultOptions().queries, retryDelay: 0 } });
    let calls = 0;
    const unreachable = client.fetchQuery({
      queryKey: ['unreachable'],
      queryFn: () => {
        calls += 1;
        return Promise.reject(new ApiFailure(0, 'network', 'the controller did not answer'));
      },
    });
    await expect(unreachable).rejects.toThrow('did not answer');
    expect(calls).toBe(2);

    calls = 0;
    const refused = client.fetchQuery({
      queryKey: ['refused'],
      queryFn: () => {
        calls += 1;
        return Promise.reject(new ApiFailure(403, 'forbidden', 'needs the admin scope'));
      },
    });
    await expect(refused).rejects.toThrow('needs the admin scope');
    expect(calls).toBe(1);
  });

  it('does not read again when the window regains focus (the event streams say when data changed)', () => {
    expect(createConsoleQueryClient().getDefaultOptions().queries?.refetchOnWindowFocus).toBe(false);
  });
});
