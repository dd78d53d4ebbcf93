import { describe, expect, it } from 'vitest';
import { ApiFailure, asFailure, failureFrom, networkFailure } from '../../../web-admin/src/api/api-error.js';

describe("the console's reading of API errors", () => {
  it("keeps the controller's message, fields and request id", () => {
    const failure = failureFrom(400, 'Bad Request', {
      error: 'invalid_request',
      message: 'invalid body parameter: spec/ttl must be <= 255',
      details: [{ path: '/spec/ttl', in: 'body', message: 'must be <= 255' }, 'junk'],
      requestId: 'r-1',
    });
    expect(failure).toBeInstanceOf(ApiFailure);
    expect(failure).toMatchObject({ status: 400, code: 'invalid_request', requestId: 'r-1' });
    expect(failure.message).toBe('invalid body parameter: spec/ttl must be <= 255');
    expect(failure.details).toEqual([{ path: '/spec/ttl', in: 'body', message: 'must be <= 255' }]);
  });

  it('still says something for a body that is not the error shape', () => {
    expect(failureFrom(502, 'Bad Gateway', null).message).toBe('the controller answered 502 Bad Gateway');
    expect(failureFrom(503, 'Service Unavailable', 'upstream down').message).toBe(
      'the controller answered 503 Service Unavailable: upstream down',
    );
    expect(failureFrom(500, 'Internal Server Error', { message: '' }).code).toBe('unexpected_response');
    expect(failureFrom(500, '', '<html>' + 'x'.repeat(500)).message).toBe('the controller answered 500');
  });

  it('knows an ended session', () => {
    expect(failureFrom(401, 'Unauthorized', { error: 'unauthenticated', message: 'm' }).unauthenticated).toBe(true);
    expect(failureFrom(403, 'Forbidden', { error: 'forbidden', message: 'm' }).unauthenticated).toBe(false);
  });

  it('turns transport and client errors into failures with a sentence', () => {
    expect(networkFailure(new TypeError('Failed to fetch')).message).toBe(
      'the controller did not answer (Failed to fetch); check the connection and retry',
    );
    expect(networkFailure(undefined)).toMatchObject({ status: 0, code: 'network' });
    expect(asFailure(new Error('boom'))).toMatchObject({ code: 'client_error', message: 'boom' });
    expect(asFailure('text').message).toBe('text');
    const same = new ApiFailure(404, 'not_found', 'no router');
    expect(asFailure(same)).toBe(same);
  });
});
