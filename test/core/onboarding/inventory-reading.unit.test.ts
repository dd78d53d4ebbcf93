import { describe, expect, it } from 'vitest';
import { InventoryError, inventoryFormat, parseInventory, readInventory } from '../../../core/onboarding/inventory.js';

describe('reading an inventory, every bad row named', () => {
  it('knows CSV and YAML by the file name, and nothing else', () => {
    expect(inventoryFormat('routers.csv')).toBe('csv');
    expect(inventoryFormat('ROUTERS.YML')).toBe('yaml');
    expect(inventoryFormat('a.yaml')).toBe('yaml');
    expect(inventoryFormat('routers.txt')).toBeNull();
    expect(inventoryFormat('routers.csv.exe')).toBeNull();
  });

  it('collects every bad CSV row with its line in the file (blank and comment lines count)', () => {
    const csv = [
      'host,port,user,fingerprint,tags,placement,install',
      '10.0.0.1,22,root,,site:a;group:b,proxy,true',
      '',
      '# a comment',
      '10.0.0.2,99999,root,,,,',
      ',22,root,,,,',
      '10.0.0.4,22,root,,,sideways,',
      '10.0.0.5,22,root,,,,maybe',
    ].join('\n');
    const { entries, problems } = readInventory('inv.csv', csv, { secrets: 'upload' });
    expect(entries).toEqual([
      {
        row: 'inv.csv:2',
        entry: {
          host: '10.0.0.1',
          port: 22,
          user: 'root',
          passwordFile: undefined,
          keyFile: undefined,
          fingerprint: undefined,
          tags: ['site:a', 'group:b'],
          placement: 'proxy',
          install: true,
          identity: undefined,
          name: undefined,
        },
      },
    ]);
    expect(problems).toEqual([
      { row: 'inv.csv:5', message: 'inv.csv:5: port must be 1-65535' },
      { row: 'inv.csv:6', message: 'inv.csv:6: host is required' },
      { row: 'inv.csv:7', message: 'inv.csv:7: placement must be auto, on_router or proxy' },
      { row: 'inv.csv:8', message: 'inv.csv:8 (10.0.0.5): install must be true or false' },
    ]);
  });

  it('reads YAML lists and { defaults, routers }, refusing inline secrets and non-objects', () => {
    const yaml = 'defaults: { user: admin }\nrouters:\n  - host: a\n  - host: b\n    password: hunter2\n  - 42\n';
    const { entries, problems } = readInventory('inv.yaml', yaml, { secrets: 'upload' });
    expect(entries.map((e) => [e.row, e.entry.host, e.entry.user])).toEqual([['inv.yaml: routers[0]', 'a', 'admin']]);
    expect(problems.map((p) => p.row)).toEqual(['inv.yaml: routers[1]', 'inv.yaml: routers[2]']);
    expect(problems[0]!.message).toContain('inline password/privateKey refused');
    expect(problems[0]!.message).not.toContain('hunter2');
    expect(problems[1]!.message).toBe('inv.yaml: routers[2]: host is required');
  });

  it('refuses a file that is not an inventory at all', () => {
    expect(() => readInventory('inv.yaml', 'routers: [a, {b', { secrets: 'upload' })).toThrow(/^inv\.yaml: not YAML/);
    expect(() => readInventory('inv.yaml', 'just a string')).toThrow(InventoryError);
    expect(() => readInventory('inv.csv', 'host,port')).toThrow(/needs a header row and at least one router/);
    expect(() => readInventory('inv.csv', 'name,port\nx,22')).toThrow(/the header row has no host column/);
  });

  it("keeps the CLI's reading: secrets from files, the first bad row throws", () => {
    expect(parseInventory('inv.csv', 'host,passwordFile\n10.0.0.1,/p').map((e) => e.passwordFile)).toEqual(['/p']);
    expect(() => parseInventory('inv.csv', 'host\n10.0.0.1')).toThrow(
      new InventoryError('inv.csv:2 (10.0.0.1): give passwordFile or keyFile (secrets never go inline)'),
    );
  });
});
