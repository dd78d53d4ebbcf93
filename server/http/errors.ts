import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { ApiError } from './api-error.js';

function validationDetails(error: FastifyError) {
  const where = error.validationContext ?? 'body';
  return (error.validation ?? []).map((v) => {
    const missing = (v.params as { missingProperty?: string })?.missingProperty;
    const extra = (v.params as { additionalProperty?: string })?.additionalProperty;
    const field = missing ?? extra;
    const path = `${v.instancePath || ''}${field ? `/${field}` : ''}` || '/';
    const message = extra
      ? `unknown parameter "${extra}"`
      : `${path.replace(/^\//, '') || where} ${v.message ?? 'is invalid'}`;
    return { path, in: where, message };
  });
}

/** Caller-supplied text an error message quotes is cut to this: a 10 KB path is not echoed back. */
const MAX_QUOTED = 200;

const quoted = (text: string) => (text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text);

export interface ErrorsPluginOptions {
  /** Answers a request no route matched before it becomes a 404 (the console's pages); true once it has sent. */
  notFoundFallback?: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;
}

async function errorsPlugin(app: FastifyInstance, { notFoundFallback }: ErrorsPluginOptions) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.status(error.statusCode).send({
        error: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
        requestId: request.id,
      });
    }
    if (error.validation) {
      const details = validationDetails(error);
      const first = details[0];
      const message = first ? `invalid ${first.in} parameter: ${first.message}` : 'invalid request';
      return reply.status(400).send({ error: 'invalid_request', message, details, requestId: request.id });
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      // Fastify's own 4xx (malformed JSON, body too large, unsupported media type).
      const code = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'payload_too_large' : 'bad_request';
      return reply.status(status).send({ error: code, message: quoted(error.message), requestId: request.id });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({
      error: 'internal',
      message: 'the controller failed to handle this request; see its log',
      requestId: request.id,
    });
  });

  app.setNotFoundHandler(async (request, reply) => {
    if (notFoundFallback && (await notFoundFallback(request, reply))) return reply;
    // The path is not echoed: it is caller text that may carry a credential or markup, and
    // the caller has it already; the log has it (redacted) under the request id.
    return reply.status(404).send({
      error: 'not_found',
      message: `no ${request.method} route at this path; the API's routes are listed at /docs`,
      requestId: request.id,
    });
  });
}

export default fp(errorsPlugin, { name: 'wrtfleet-errors' });
