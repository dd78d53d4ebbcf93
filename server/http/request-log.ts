import type { FastifyRequest } from 'fastify';
import { TOKEN_PREFIX } from '../auth/api-tokens.js';
import { ENROLLMENT_TOKEN_PREFIX } from '../auth/enrollment-tokens.js';

/**
 * Query parameters whose value may be a credential: their values never reach the log. Broad on
 * purpose (a "monkey" parameter redacted costs a diagnostic; a "pwd" logged costs a password).
 */
const CREDENTIAL_PARAM =
  /token|secret|pass|pwd|key|auth|bearer|jwt|csrf|xsrf|sig|sess|sid|cookie|credential|code|otp|nonce|private|refresh|assertion/i;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Values that are credentials whatever they are called: the controller's own API and enrollment
 * tokens (by their prefixes, server/auth), JSON web tokens, an Authorization header's value, and
 * long random-looking text (a session id or CSRF token has no prefix, but is 43 characters of
 * base64url mixing cases and digits, which the API's UUIDs, names and numbers are not; an opaque
 * cursor may match, and costs only a diagnostic). All but the first are anchored: each runs in
 * linear time over a 16 KB URL.
 */
const SECRET_SHAPES = [
  new RegExp(`(${[TOKEN_PREFIX, ENROLLMENT_TOKEN_PREFIX].map(escapeRegExp).join('|')})[A-Za-z0-9_-]{4,}`),
  /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./,
  /^\s*(bearer|basic)\s/i,
  /^(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{32,}$/,
];

const REDACTED = '[redacted]';

/** A URL component as the server reads it; text that does not decode is judged as it is. */
function decoded(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return component;
  }
}

const looksSecret = (component: string) => {
  const text = decoded(component);
  return SECRET_SHAPES.some((shape) => shape.test(text));
};

function loggableQueryPair(pair: string): string {
  const eq = pair.indexOf('=');
  if (eq < 0) return looksSecret(pair) ? REDACTED : pair;
  const name = pair.slice(0, eq);
  if (looksSecret(name)) return `${REDACTED}=${REDACTED}`;
  return CREDENTIAL_PARAM.test(decoded(name)) || looksSecret(pair.slice(eq + 1)) ? `${name}=${REDACTED}` : pair;
}

/** Longest URL text a log line keeps; a 10 KB path is an attack, not a diagnostic. */
const MAX_LOGGED_URL = 512;

/**
 * The URL as the log records it: query values under a credential-like name, and any path
 * segment or query value shaped like a credential, replaced; long URLs cut.
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q >= 0 ? url.slice(0, q) : url)
    .split('/')
    .map((segment) => (looksSecret(segment) ? REDACTED : segment))
    .join('/');
  const text =
    q >= 0
      ? `${path}?${url
          .slice(q + 1)
          .split('&')
          .map(loggableQueryPair)
          .join('&')}`
      : path;
  return text.length > MAX_LOGGED_URL ? `${text.slice(0, MAX_LOGGED_URL)}…(${text.length} chars)` : text;
}

/**
 * Fastify's `req` serializer for the "incoming request" line, with the URL made loggable:
 * the header redaction cannot reach a token a client put in the query string.
 */
export function requestLogSerializer(request: FastifyRequest) {
  // Anything else logged under `req` (not a request) passes through, for the logger's redaction.
  if (typeof request?.url !== 'string') return request;
  return {
    method: request.method,
    url: loggableUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
