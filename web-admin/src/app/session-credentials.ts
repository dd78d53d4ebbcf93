/** The part of GET /v1/session's answer the client needs (session.tsx has the whole type). */
interface SessionInfo {
  kind: string;
  csrfToken?: string | null;
}

/**
 * What the API client sends with each call: the session's CSRF token and a pasted API token.
 * Held outside React state because every request reads it at send time, not at render; a
 * class, so the session's callbacks change it through methods rather than a ref read in render.
 */
export class SessionCredentials {
  private session: SessionInfo | null = null;
  private bearer: string | null = null;

  csrfToken(): string | null {
    return this.session?.csrfToken ?? null;
  }
  bearerToken(): string | null {
    return this.bearer;
  }
  current(): SessionInfo | null {
    return this.session;
  }
  adopt(session: SessionInfo): void {
    this.session = session;
  }
  useBearer(token: string | null): void {
    this.bearer = token;
  }
  clear(): void {
    this.session = null;
    this.bearer = null;
  }
}
