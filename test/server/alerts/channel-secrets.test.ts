import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChannelStore } from '../../../server/alerts/channels/channel-store.js';
import { AuditLog } from '../../../server/audit/audit-log.js';
import { SecretBox } from '../../../server/secrets/secret-box.js';
import { createPgliteDatabase } from '../../support/databases.js';
import { openedDatabase } from '../../support/opened-database.js';

/**
 * Channel secrets at rest: sealed to their row, opened only to send, and re-sealed with the
 * current data key after a rotation, so the previous key can be dropped.
 */
describe('channel secrets and a data key rotation (PGlite)', () => {
  const opened = openedDatabase(createPgliteDatabase);

  it('opens secrets sealed with the previous key, re-seals them, then needs only the new key', async () => {
    const prisma = opened.db.prisma;
    const audit = new AuditLog(prisma);
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const before = new ChannelStore(prisma, audit, new SecretBox(oldKey));
    const url = 'https://hooks.slack.example/services/T1/B1/rotate-me';
    await before.create({ name: 'chat', slack: { url } }, { actor: 'test' });
    const { secret } = await before.create({ name: 'hook', webhook: { url: 'https://h.example/' } }, { actor: 'test' });
    await before.create(
      { name: 'mail', email: { host: 'smtp.example', from: 'a@b.example', to: ['c@d.example'] } },
      { actor: 'test' },
    );

    const rotated = new ChannelStore(prisma, audit, new SecretBox(newKey, [oldKey]));
    expect((await rotated.targetByName('chat'))?.secret).toBe(url);
    expect(await rotated.resealStale()).toEqual({ resealed: expect.arrayContaining(['chat', 'hook']), unreadable: [] });
    expect(await rotated.resealStale()).toEqual({ resealed: [], unreadable: [] });

    const after = new ChannelStore(prisma, audit, new SecretBox(newKey));
    expect(await after.targetByName('chat')).toMatchObject({ secret: url, unusable: undefined });
    expect(await after.targetByName('hook')).toMatchObject({ secret, unusable: undefined });
    expect(await after.targetByName('mail')).toMatchObject({ secret: null, unusable: undefined });

    // A key that never sealed them opens nothing: the channel is unusable, and says why.
    const lost = new ChannelStore(prisma, audit, new SecretBox(randomBytes(32)));
    expect((await lost.targetByName('chat'))?.unusable).toMatch(/unknown data key/);
    expect(await lost.resealStale()).toEqual({ resealed: [], unreadable: expect.arrayContaining(['chat', 'hook']) });
  });
});
