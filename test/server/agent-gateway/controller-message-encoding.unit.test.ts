import { describe, expect, it, vi } from 'vitest';
import { ControllerMessage, DesiredState } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { encodeControllerMessage, shareBody } from '../../../server/agent-gateway/controller-message-encoding.js';
import { DEFAULT_PROFILE_SPEC } from '../../../core/profile-spec.js';

const desired = () =>
  ({
    $case: 'desiredState',
    value: {
      profile: 'edge',
      revision: 7,
      spec: JSON.parse(JSON.stringify(DEFAULT_PROFILE_SPEC)) as { [key: string]: unknown },
      confirmWindowSeconds: 60,
      rolloutId: 'r-1',
    },
  }) as const;

describe('ControllerMessage encoding with shared bodies', () => {
  it('writes the bytes ControllerMessage.encode writes, whatever the seq and time', () => {
    const body = shareBody(desired());
    for (const [seq, sentAt] of [
      [1, new Date('2026-12-03T08:00:00.123Z')],
      [300, undefined],
      [2 ** 40, new Date(0)],
    ] as const) {
      const message = { seq, sentAt, body };
      const bytes = encodeControllerMessage(message);
      expect(Buffer.compare(bytes, Buffer.from(ControllerMessage.encode(message).finish()))).toBe(0);
      expect(ControllerMessage.decode(bytes)).toEqual(
        ControllerMessage.decode(ControllerMessage.encode(message).finish()),
      );
    }
  });

  it('encodes a shared body once for all the streams it goes to, an unshared one each time', () => {
    const encode = vi.spyOn(DesiredState, 'encode');
    try {
      const shared = shareBody(desired());
      for (let seq = 1; seq <= 50; seq++) encodeControllerMessage({ seq, sentAt: new Date(), body: shared });
      expect(encode).toHaveBeenCalledTimes(1);
      const own = desired();
      for (let seq = 1; seq <= 5; seq++) encodeControllerMessage({ seq, sentAt: new Date(), body: own });
      expect(encode).toHaveBeenCalledTimes(6);
    } finally {
      encode.mockRestore();
    }
  });
});
