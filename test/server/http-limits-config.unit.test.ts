import { describe, expect, it } from 'vitest';
import { ConfigError, configFromEnv, DEFAULT_HTTP_LIMITS } from '../../server/config.js';

describe('REST time limits from the environment', () => {
  it('defaults, overrides, and refuses what is not a positive number', () => {
    expect(configFromEnv({}).http).toEqual(DEFAULT_HTTP_LIMITS);
    expect(
      configFromEnv({
        WRTFLEET_HTTP_REQUEST_TIMEOUT_SECONDS: '10',
        WRTFLEET_HTTP_IDLE_TIMEOUT_SECONDS: '20',
        WRTFLEET_HTTP_STREAM_MAX_SECONDS: '600',
        WRTFLEET_HTTP_MAX_STREAMS_PER_CALLER: '4',
      }).http,
    ).toEqual({ requestTimeoutSeconds: 10, idleTimeoutSeconds: 20, streamMaxSeconds: 600, maxStreamsPerCaller: 4 });
    expect(DEFAULT_HTTP_LIMITS.maxStreamsPerCaller).toBe(16);
    expect(() => configFromEnv({ WRTFLEET_HTTP_MAX_STREAMS_PER_CALLER: 'many' })).toThrow(
      /WRTFLEET_HTTP_MAX_STREAMS_PER_CALLER/,
    );
    expect(() => configFromEnv({ WRTFLEET_HTTP_STREAM_MAX_SECONDS: 'forever' })).toThrow(ConfigError);
    expect(() => configFromEnv({ WRTFLEET_HTTP_IDLE_TIMEOUT_SECONDS: '0' })).toThrow(
      /WRTFLEET_HTTP_IDLE_TIMEOUT_SECONDS/,
    );
  });
});
