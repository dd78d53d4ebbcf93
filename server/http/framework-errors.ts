import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The errors Fastify and Node answer before any route or error handler runs (a URL that does
 * not decode, a path segment past `maxParamLength`, headers past Node's limit, a request
 * that arrives too slowly), in the API's one error shape with a request id (server/http/errors.ts).
 * None of them echoes the URL: it may be 10 KB long, or carry a credential.
 */

/** Longest path parameter the router accepts; ids are at most 64 characters. */
export const MAX_PARAM_LENGTH = 100;

export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [status, code, message] =
    error.code === 'FST_ERR_BAD_URL'
      ? [400, 'bad_request', 'the URL is not valid: a percent-escape in its path does not decode']
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? [414, 'uri_too_long', `a path segment is longer than ${MAX_PARAM_LENGTH} characters`]
        : [400, 'bad_request', 'the request cannot be routed'];
  request.log.info({ code: error.code, statusCode: status }, 'request refused before routing');
  void reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send({ error: code, message, requestId: request.id });
}

function clientErrorOf(err: NodeJS.ErrnoException): [number, string, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'request_timeout', 'the request did not arrive in full within the time limit'];
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return [431, 'headers_too_large', 'the request line and headers are larger than the controller accepts'];
  return [400, 'bad_request', 'the request is not valid HTTP'];
}

/** Node's `clientError`: the connection gets one JSON answer and is closed. */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = clientErrorOf(err);
  const requestId = randomUUID();
  this.log.info({ reqId: requestId, code: err.code, statusCode: status }, 'client error');
  const body = JSON.stringify({ error: code, message, requestId });
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
