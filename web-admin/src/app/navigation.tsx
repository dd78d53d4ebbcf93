import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type AnchorHTMLAttributes,
  type ReactNode,
} from 'react';

/**
 * The console's client-side router on the History API: every page has its own URL (a link
 * can be shared, back and forward work), and the query string carries a page's filters.
 */
export interface ConsoleLocation {
  pathname: string;
  /** The query string with its "?", or "". */
  search: string;
}

export interface NavigateOptions {
  /** Replace the current history entry (a redirect, a filter typed letter by letter) instead of adding one. */
  replace?: boolean;
}

interface Navigation {
  location: ConsoleLocation;
  navigate(to: string, options?: NavigateOptions): void;
}

const NavigationContext = createContext<Navigation | null>(null);

function current(): ConsoleLocation {
  return { pathname: window.location.pathname, search: window.location.search };
}

export function NavigationProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const onPop = () => setLocation(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, options: NavigateOptions = {}) => {
    const url = new URL(to, window.location.href);
    if (url.origin !== window.location.origin) {
      window.location.assign(url.href);
      return;
    }
    const target = `${url.pathname}${url.search}${url.hash}`;
    if (target === `${window.location.pathname}${window.location.search}${window.location.hash}`) return;
    if (options.replace) window.history.replaceState(null, '', target);
    else window.history.pushState(null, '', target);
    setLocation(current());
    if (!options.replace) window.scrollTo(0, 0);
  }, []);
  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <NavigationContext.Provider value={value}>{children}</NavigationContext.Provider>;
}

function useNavigation(): Navigation {
  const navigation = useContext(NavigationContext);
  if (!navigation) throw new Error('useNavigation outside NavigationProvider');
  return navigation;
}

export const useLocation = (): ConsoleLocation => useNavigation().location;
export const useNavigate = (): Navigation['navigate'] => useNavigation().navigate;

/** The query string as URLSearchParams, and a setter that replaces the history entry (filters are not steps). */
export function useSearchParams(): [URLSearchParams, (next: URLSearchParams, options?: NavigateOptions) => void] {
  const { location, navigate } = useNavigation();
  const params = useMemo(() => new URLSearchParams(location.search), [location.search]);
  const set = useCallback(
    (next: URLSearchParams, options: NavigateOptions = { replace: true }) => {
      const query = next.toString();
      navigate(`${location.pathname}${query ? `?${query}` : ''}`, options);
    },
    [location.pathname, navigate],
  );
  return [params, set];
}

type AnchorProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>;

/** An <a> that navigates without reloading on a plain click, and stays a real link otherwise (new tab, copy link). */
export function Link({ to, onClick, ...rest }: AnchorProps & { to: string }) {
  const navigate = useNavigate();
  return (
    <a
      {...rest}
      href={to}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || event.button !== 0 || rest.target) return;
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}
