import { Suspense, useEffect, type ReactNode } from 'react';
import { QueryProvider } from '../api/QueryProvider.js';
import { ErrorBoundary } from '../components/ErrorBoundary.js';
import { Loading } from '../components/Loading.js';
import { Page } from '../components/Page.js';
import { SessionExpiredDialog } from '../pages/sign-in/SessionExpiredDialog.js';
import { SignInPage } from '../pages/sign-in/SignInPage.js';
import { Link, NavigationProvider, useLocation, useNavigate } from './navigation.js';
import { matchRoute } from './route-match.js';
import { HOME, preloadHomePage, ROUTES } from './routes.js';
import { SessionProvider, useSession } from './session.js';
import { Shell } from './Shell.js';

export function App() {
  return (
    <ErrorBoundary>
      <NavigationProvider>
        <SessionProvider>
          <SessionQueries>
            <Console />
          </SessionQueries>
        </SessionProvider>
      </NavigationProvider>
    </ErrorBoundary>
  );
}

/** The query cache, emptied whenever nobody is signed in. */
function SessionQueries({ children }: { children: ReactNode }) {
  const { state } = useSession();
  return <QueryProvider signedOut={state.status === 'signed_out'}>{children}</QueryProvider>;
}

function Console() {
  const { state } = useSession();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    if (pathname === '/' || pathname === '') navigate(HOME, { replace: true });
  }, [pathname, navigate]);

  const signedOut = state.status === 'signed_out';
  useEffect(() => {
    if (signedOut) preloadHomePage();
  }, [signedOut]);

  if (state.status === 'loading') return <Loading what="Opening the console" />;
  if (state.status === 'signed_out') return <SignInPage notice={state.notice} />;
  const matched = matchRoute(ROUTES, pathname);
  const PageComponent = matched?.route.component;
  return (
    <>
      <Shell section={matched?.route.section ?? null}>
        <ErrorBoundary resetKey={pathname}>
          <Suspense fallback={<Loading />}>
            {PageComponent ? <PageComponent params={matched.params} /> : <NotFound />}
          </Suspense>
        </ErrorBoundary>
      </Shell>
      {state.status === 'expired' ? <SessionExpiredDialog name={state.session.name} /> : null}
    </>
  );
}

function NotFound() {
  const { pathname } = useLocation();
  if (pathname === '/') return null;
  return (
    <Page title="Not found">
      <p>
        The console has no page at <code>{pathname}</code>. <Link to={HOME}>Go to the fleet</Link>.
      </p>
    </Page>
  );
}
