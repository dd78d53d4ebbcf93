import type { FastifyRequest } from 'fastify';

/** Query parameters whose value may be a credential: their values never reach the log. */
const CREDENTIAL_PARAM = /token|secret|pass|key|auth|sig|session|cookie|credential|code/i;

/** Longest URL text a log line keeps; a 10 KB path is an attack, not a diagnostic. */
const MAX_LOGGED_URL = 512;

/** The URL as the log records it: credential-looking query values replaced, long ones cut. */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  let text = url;
  if (q >= 0) {
    const query = url
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = eq >= 0 ? pair.slice(0, eq) : pair;
        return eq >= 0 && CREDENTIAL_PARAM.test(name) ? `${name}=[redacted]` : pair;
      })
      .join('&');
    text = `${url.slice(0, q)}?${query}`;
  }
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
