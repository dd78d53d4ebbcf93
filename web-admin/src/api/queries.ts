import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type InfiniteData,
} from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { asFailure, type ApiFailure } from './api-error.js';
import type { QueryKey } from './query-keys.js';

/*
 * A thin typed layer over TanStack Query rather than openapi-react-query: pages already call the
 * typed openapi-fetch client through `unwrap` (which turns every refusal into an ApiFailure with
 * the controller's sentence), several loads combine calls or are not API calls at all (the spec
 * schema), and invalidation goes by resource family (query-keys.ts) rather than by URL. Each hook
 * hands back what a page shows — data, an ApiFailure, loading — so no page handles errors itself.
 */

export interface Loaded<T> {
  data: T | undefined;
  failure: ApiFailure | null;
  /** True until the first answer (later reads keep showing the data they replace). */
  loading: boolean;
  /** Reads again (the Retry of an error notice). */
  retry(): void;
}

export interface ApiQueryOptions<T> {
  /** False while the query cannot run yet (a choice not made). */
  enabled?: boolean;
  /** Keep showing the previous key's data while the new key loads (a filter change). */
  keepPrevious?: boolean;
  /** Read again this often (ms) while shown, for views without an event stream; from the data, false stops. */
  refetchEvery?: number | ((data: T | undefined) => number | false);
}

/** Reads `key` with `load`; the cache shares it with every component that asks for the same key. */
export function useApiQuery<T>(key: QueryKey, load: () => Promise<T>, options: ApiQueryOptions<T> = {}): Loaded<T> {
  const every = options.refetchEvery;
  const query = useQuery({
    queryKey: key,
    queryFn: load,
    enabled: options.enabled ?? true,
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
    refetchInterval: typeof every === 'function' ? (q) => every(q.state.data) : every,
  });
  const { refetch } = query;
  const retry = useCallback(() => void refetch(), [refetch]);
  return {
    data: query.data,
    failure: query.error ? asFailure(query.error) : null,
    // From the status alone: reading fetchStatus would subscribe the component to every
    // background read's start and end, two more renders of a large table each time.
    loading: query.isPending && (options.enabled ?? true),
    retry,
  };
}

/** One keyset page as the API answers a listing. */
export interface KeysetPage<Item> {
  items: Item[];
  nextCursor: string | null;
}

export interface Paged<Item> {
  items: Item[];
  failure: ApiFailure | null;
  /** True until the first page arrives. */
  loading: boolean;
  /** A next page exists (the last answer carried a cursor). */
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
  retry(): void;
}

/**
 * A keyset-paged listing: the first page under `key`, each further page read with the cursor the
 * previous one returned ("Older events"). Invalidating `key` reads every loaded page again.
 */
export function useApiPages<Item>(
  key: QueryKey,
  loadPage: (cursor: string | null) => Promise<KeysetPage<Item>>,
  options: { enabled?: boolean; keepPrevious?: boolean; refetchEvery?: number } = {},
): Paged<Item> {
  const query = useInfiniteQuery<
    KeysetPage<Item>,
    Error,
    InfiniteData<KeysetPage<Item>, string | null>,
    QueryKey,
    string | null
  >({
    queryKey: key,
    queryFn: ({ pageParam }) => loadPage(pageParam),
    initialPageParam: null,
    getNextPageParam: (last) => last.nextCursor,
    enabled: options.enabled ?? true,
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
    // Every loaded page is read again: a live list (alerts) stays whole.
    refetchInterval: options.refetchEvery,
  });
  const items = useMemo(() => query.data?.pages.flatMap((p) => p.items) ?? [], [query.data]);
  const { fetchNextPage, refetch } = query;
  return {
    items,
    failure: query.error ? asFailure(query.error) : null,
    loading: query.isPending && (options.enabled ?? true),
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore: useCallback(() => void fetchNextPage(), [fetchNextPage]),
    retry: useCallback(() => void refetch(), [refetch]),
  };
}

/** What one run does after it ends, besides what the mutation always does. */
export interface RunCallbacks<Output> {
  onSuccess?(output: Output): void;
  onFailure?(failure: ApiFailure): void;
  onSettled?(): void;
}

export interface ApiMutation<Input, Output> {
  /** Runs the change; the failure, if any, shows through `failure` (never thrown). */
  run(input: Input, then?: RunCallbacks<Output>): void;
  /** Runs the change and resolves with its answer, or undefined when it failed (shown through `failure`). */
  runAsync(input: Input): Promise<Output | undefined>;
  pending: boolean;
  failure: ApiFailure | null;
  /** The last successful answer (until `reset`). */
  data: Output | undefined;
  /** The last run succeeded (until `reset`): for answers without a body. */
  succeeded: boolean;
  /** Forgets the last failure (a dialog closed, the form edited). */
  reset(): void;
}

export interface ApiMutationOptions<Output> {
  /** The query families this change makes stale: read again once it succeeds. */
  invalidates?: readonly QueryKey[];
  onSuccess?(output: Output): void;
}

/**
 * A change through the API. On success it invalidates the queries it names (every list that
 * shows what changed reads again, no page reloads by hand); a failure becomes an ApiFailure on
 * `failure` for the component to show with ErrorNotice: the one path for every mutation's error.
 */
export function useApiMutation<Input, Output>(
  change: (input: Input) => Promise<Output>,
  options: ApiMutationOptions<Output> = {},
): ApiMutation<Input, Output> {
  const client = useQueryClient();
  const mutation = useMutation<Output, Error, Input>({
    mutationFn: change,
    onSuccess: async (output) => {
      options.onSuccess?.(output);
      await Promise.all((options.invalidates ?? []).map((queryKey) => client.invalidateQueries({ queryKey })));
    },
  });
  const { mutate, mutateAsync, reset } = mutation;
  const run = useCallback<ApiMutation<Input, Output>['run']>(
    (input, then) =>
      mutate(input, {
        onSuccess: (output) => then?.onSuccess?.(output),
        onError: (error) => then?.onFailure?.(asFailure(error)),
        onSettled: () => then?.onSettled?.(),
      }),
    [mutate],
  );
  const runAsync = useCallback((input: Input) => mutateAsync(input).catch(() => undefined), [mutateAsync]);
  return {
    run,
    runAsync,
    pending: mutation.isPending,
    data: mutation.data,
    succeeded: mutation.isSuccess,
    failure: mutation.error ? asFailure(mutation.error) : null,
    reset,
  };
}
