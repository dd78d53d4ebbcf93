import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import { asFailure, type ApiFailure } from './api-error.js';
import { SignInGeneration } from './sign-in-generation.js';

export interface Loaded<T> {
  data: T | undefined;
  failure: ApiFailure | null;
  loading: boolean;
  /** Loads again (after a change, or the Retry of an error). */
  reload(): void;
}

/**
 * Loads data for a component: runs `load` now and whenever `deps` change, keeps the last
 * data while reloading, and turns a failure into an ApiFailure to show. An answer that
 * arrives after a newer load started is dropped. A load refused because the session had ended
 * runs again after the next sign-in.
 */
export function useApi<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const loader = useRef(load);
  useEffect(() => {
    loader.current = load;
  });
  useEffect(() => {
    const run = ++latest.current;
    setLoading(true);
    loader.current().then(
      (value) => {
        if (run !== latest.current) return;
        setData(value);
        setFailure(null);
        setLoading(false);
      },
      (error: unknown) => {
        if (run !== latest.current) return;
        setFailure(asFailure(error));
        setLoading(false);
      },
    );
    // The caller names the dependencies, as with useEffect.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const generation = useContext(SignInGeneration);
  const signedInAt = useRef(generation);
  useEffect(() => {
    if (signedInAt.current === generation) return;
    signedInAt.current = generation;
    if (failure?.unauthenticated) reload();
  }, [generation, failure, reload]);
  return { data, failure, loading, reload };
}
