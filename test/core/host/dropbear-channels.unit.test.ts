import { describe, expect, it } from 'vitest';
import { dropbearChannelLimit } from '../../../core/host/dropbear-channels.js';

describe('commands at once over one SSH connection, by server software', () => {
  it('is one on the dropbear releases that abort under concurrent channels (2022.82 to 2024.85)', () => {
    for (const v of ['dropbear_2022.82', 'dropbear_2022.83', 'dropbear_2024.85', 'dropbear']) {
      expect(dropbearChannelLimit(v), v).toBe(1);
    }
  });

  it('sets no limit on older and fixed dropbear, on OpenSSH, or before the banner is read', () => {
    for (const v of ['dropbear_2020.81', 'dropbear_2022.81', 'dropbear_2024.86', 'dropbear_2025.88', 'OpenSSH_9.2p1']) {
      expect(dropbearChannelLimit(v), v).toBeUndefined();
    }
    expect(dropbearChannelLimit(undefined)).toBeUndefined();
  });
});
