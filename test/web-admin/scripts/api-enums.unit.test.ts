import { describe, expect, it } from 'vitest';
import { apiEnumsCode, titledEnums } from '../../../web-admin/scripts/api-enums.js';

describe("the API's named enums, read from its OpenAPI document", () => {
  const document = {
    paths: {
      '/v1/routers': {
        get: {
          parameters: [
            { name: 'status', schema: { title: 'ConnectionStatus', type: 'string', enum: ['online', 'offline'] } },
          ],
        },
      },
      '/v1/accounts': {
        post: { body: { role: { title: 'Role', anyOf: [{ type: 'string', enum: ['read'] }, { const: 'admin' }] } } },
      },
    },
    // An untitled enum is nobody's list; a titled number is not a string enum.
    other: { type: 'string', enum: ['x'], nested: { title: 'Count', type: 'integer', enum: [1, 2] } },
  };

  it('finds every titled string enum, StringEnum or a union of literals, and nothing else', () => {
    expect([...titledEnums(document)]).toEqual([
      ['ConnectionStatus', ['online', 'offline']],
      ['Role', ['read', 'admin']],
    ]);
  });

  it('refuses one title with two lists: the server would have two definitions', () => {
    const twice = {
      a: { title: 'State', type: 'string', enum: ['a'] },
      b: { title: 'State', type: 'string', enum: ['b'] },
    };
    expect(() => titledEnums(twice)).toThrow(/the enum State has two value lists/);
  });

  it('writes lists a client can import, with the type of one value', () => {
    const code = apiEnumsCode(document);
    expect(code).toContain('ConnectionStatus: ["online","offline"],');
    expect(code).toContain('export type ApiEnum<K extends keyof typeof API_ENUMS>');
  });
});
