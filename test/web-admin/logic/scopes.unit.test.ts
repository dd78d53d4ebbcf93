import { describe, expect, it } from 'vitest';
import { grants as serverGrants, SCOPES } from '../../../server/auth/api-tokens.js';
import { grants } from '../../../web-admin/src/app/scopes.js';

describe('what the console shows a caller', () => {
  it('follows the controller scope rule for every combination of scopes', () => {
    const subsets = Array.from({ length: 1 << SCOPES.length }, (_, mask) => SCOPES.filter((_, i) => mask & (1 << i)));
    for (const scopes of subsets)
      for (const needed of SCOPES)
        expect(grants(scopes, needed), `${scopes} ⊢ ${needed}`).toBe(serverGrants(scopes, needed));
  });
});
