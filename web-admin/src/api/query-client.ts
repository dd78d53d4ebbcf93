import { QueryClient } from '@tanstack/react-query';
import { asFailure } from './api-error.js';

/**
 * The console's one query cache. Defaults chosen for an operator's console fed by live event
 * streams: no refetch on window focus (the streams say when data changed, and a refetch would
 * redraw a 10,000-router table for nothing), one retry only when the controller did not answer
 * at all (a 4xx/5xx answer is shown, not hammered), and data kept five minutes after its page
 * closes so going back shows it at once while it is read again.
 */
export function createConsoleQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        refetchOnWindowFocus: false,
        retry: (failures, error) => failures < 1 && asFailure(error).status === 0,
        gcTime: 5 * 60_000,
      },
      mutations: { retry: false },
    },
  });
}
