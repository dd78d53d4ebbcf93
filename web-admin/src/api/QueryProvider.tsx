import { QueryClientProvider } from '@tanstack/react-query';
import { useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { asFailure } from './api-error.js';
import { createConsoleQueryClient } from './query-client.js';
import { SignInGeneration } from './sign-in-generation.js';

/**
 * The query cache for the console's life. After each sign-in, the reads that were refused
 * because the session had ended (401) run again, so the page under the "signed in again" dialog
 * shows its data; when nobody is signed in the cache is emptied, so the next operator never sees
 * the last one's data.
 */
export function QueryProvider({ signedOut, children }: { signedOut: boolean; children: ReactNode }) {
  const [client] = useState(createConsoleQueryClient);
  const generation = useContext(SignInGeneration);
  const signedInAt = useRef(generation);
  useEffect(() => {
    if (signedInAt.current === generation) return;
    signedInAt.current = generation;
    void client.refetchQueries({
      predicate: (query) => query.state.status === 'error' && asFailure(query.state.error).unauthenticated,
    });
  }, [client, generation]);
  useEffect(() => {
    if (signedOut) client.clear();
  }, [client, signedOut]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
