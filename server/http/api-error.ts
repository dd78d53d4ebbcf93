/**
 * Every error leaves the API as JSON of one shape:
 *   { "error": "<machine code>", "message": "<one sentence>", "details"?: [{ "path", "in", "message" }] }
 * with a 4xx status for what the caller can fix and 5xx for what they cannot. Internal
 * errors never carry their message or stack to the caller (it may name a secret or a
 * file); the log has them, under the request id the response echoes.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: { path: string; in?: string; message: string }[],
  ) {
    super(message);
  }
}

export const errorBodySchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string' },
    message: { type: 'string' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, in: { type: 'string' }, message: { type: 'string' } },
      },
    },
    requestId: { type: 'string' },
  },
} as const;
