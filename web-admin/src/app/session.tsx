import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { asFailure } from '../api/api-error.js';
import { createApiClient, unwrap, type ApiClient, type ApiPaths, type ClientAuth } from '../api/client.js';
import { SignInGeneration } from '../api/sign-in-generation.js';
import { grants, type Scope } from './scopes.js';
import { SessionCredentials } from './session-credentials.js';

/** Who is signed in, as GET /v1/session answers. */
export type SessionInfo = ApiPaths['/v1/session']['get']['responses'][200]['content']['application/json'];

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed_out'; notice: string | null }
  | { status: 'signed_in'; session: SessionInfo }
  /** The session ended while a page was open: the page stays (with its unsaved input) under a sign-in dialog. */
  | { status: 'expired'; session: SessionInfo };

export type Credentials = { token: string } | { name: string; password: string };

export interface SessionContextValue {
  state: SessionState;
  /** The signed-in caller, also while the session is expired (the page keeps showing for them). */
  session: SessionInfo | null;
  /** Whether the caller's scopes allow `scope`; the console hides what they do not. */
  can(scope: Scope): boolean;
  /** Signs in; throws an ApiFailure with the controller's message when refused. */
  signIn(credentials: Credentials): Promise<void>;
  signOut(): Promise<void>;
  /** The typed REST client, carrying this session's credentials. */
  api: ApiClient;
  /** The same credentials for event streams (api/event-stream.ts). */
  auth: ClientAuth;
}

const SessionContext = createContext<SessionContextValue | null>(null);

/**
 * The session: who am I, my role and scopes, the CSRF token every write carries. Loaded from
 * GET /v1/session at start; a 401 on any call marks it expired, so the open page keeps its
 * state and asks to sign in again.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);
  const [credentials] = useState(() => new SessionCredentials());

  const auth = useMemo<ClientAuth>(
    () => ({
      csrfToken: () => credentials.csrfToken(),
      bearerToken: () => credentials.bearerToken(),
      onUnauthenticated: () =>
        setState((now) =>
          now.status === 'signed_in'
            ? { status: 'expired', session: now.session }
            : now.status === 'loading'
              ? { status: 'signed_out', notice: null }
              : now,
        ),
    }),
    [credentials],
  );
  const api = useMemo(() => createApiClient(auth), [auth]);

  const adopt = useCallback(
    (session: SessionInfo) => {
      credentials.adopt(session);
      setState({ status: 'signed_in', session });
      setGeneration((n) => n + 1);
    },
    [credentials],
  );

  useEffect(() => {
    unwrap(api.GET('/v1/session')).then(adopt, (error: unknown) => {
      const failure = asFailure(error);
      setState({ status: 'signed_out', notice: failure.unauthenticated ? null : failure.message });
    });
  }, [api, adopt]);

  const signIn = useCallback(
    async (given: Credentials) => {
      if (!('token' in given)) {
        // The controller sets the HttpOnly session cookie; the answer carries the CSRF token.
        const session = await unwrap(api.POST('/v1/session', { body: given }));
        credentials.useBearer(null);
        adopt(session);
        return;
      }
      const previous = credentials.bearerToken();
      credentials.useBearer(given.token.trim());
      try {
        adopt(await unwrap(api.GET('/v1/session')));
      } catch (error) {
        credentials.useBearer(previous);
        throw asFailure(error);
      }
    },
    [api, adopt, credentials],
  );

  const signOut = useCallback(async () => {
    // Ends the session on the controller (it clears the cookie); a pasted token is only forgotten.
    if (credentials.current()?.kind === 'account') await api.DELETE('/v1/session').catch(() => undefined);
    credentials.clear();
    setState({ status: 'signed_out', notice: 'Signed out.' });
  }, [api, credentials]);

  const value = useMemo<SessionContextValue>(() => {
    const session = state.status === 'signed_in' || state.status === 'expired' ? state.session : null;
    return {
      state,
      session,
      can: (scope) => (session ? grants(session.scopes, scope) : false),
      signIn,
      signOut,
      api,
      auth,
    };
  }, [state, signIn, signOut, api, auth]);
  return (
    <SessionContext.Provider value={value}>
      <SignInGeneration.Provider value={generation}>{children}</SignInGeneration.Provider>
    </SessionContext.Provider>
  );
}

export function useSession(): SessionContextValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The signed-in caller; for pages, which render only when someone is signed in. */
export function useSignedIn(): SessionInfo & Pick<SessionContextValue, 'can' | 'api' | 'auth'> {
  const { session, can, api, auth } = useSession();
  if (!session) throw new Error('useSignedIn on a page rendered without a session');
  return { ...session, can, api, auth };
}
