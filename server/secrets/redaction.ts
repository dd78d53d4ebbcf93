import type { LoggerOptions } from 'pino';

/** Field names that may hold a secret anywhere in a log object. */
const SECRET_FIELDS = [
  'password',
  'privateKey',
  'privateKeyPem',
  'keyPem',
  'serverKeyPem',
  'passphrase',
  'token',
  'secret',
  'authorization',
  'cookie',
  'dataKey',
  'databaseUrl',
  'secretCiphertext',
  'tokenHash',
  // Alert channels: the sealed column, and the secret a webhook receiver verifies with.
  'sealedSecret',
  'signingSecret',
];

/**
 * pino redaction for every log line the controller writes: the secret fields at the top
 * level and two levels down (pino's wildcards match exactly one level each), plus the
 * request headers Fastify logs. A test plants secrets and scans every line.
 */
export const LOG_REDACTION: NonNullable<LoggerOptions['redact']> = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'req.headers["x-api-key"]',
    ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
  ],
  censor: '[redacted]',
};
