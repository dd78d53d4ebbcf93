import { describe, expect, it } from 'vitest';
import { firstPageFiles, FIRST_PAGE_SOURCE, gzipSize } from '../../../web-admin/scripts/first-page-budget.js';

describe("the first page's JavaScript budget", () => {
  const manifest = {
    'index.html': {
      file: 'assets/index-a.js',
      isEntry: true,
      imports: ['_vendor'],
      dynamicImports: [FIRST_PAGE_SOURCE, 'src/pages/audit/AuditPage.tsx'],
      css: ['assets/index.css'],
    },
    _vendor: { file: 'assets/vendor-b.js' },
    [FIRST_PAGE_SOURCE]: { file: 'assets/FleetPage-c.js', isDynamicEntry: true, imports: ['_vendor', '_table'] },
    _table: { file: 'assets/table-d.js', imports: ['_vendor'] },
    'src/pages/audit/AuditPage.tsx': { file: 'assets/AuditPage-e.js', isDynamicEntry: true, imports: ['_diff'] },
    _diff: { file: 'assets/diff-f.js' },
  };

  it('counts the entry, the fleet page and what they import statically, each once', () => {
    expect(firstPageFiles(manifest)).toEqual([
      'assets/index-a.js',
      'assets/vendor-b.js',
      'assets/FleetPage-c.js',
      'assets/table-d.js',
    ]);
  });

  it('refuses a manifest it cannot read', () => {
    expect(() => firstPageFiles({})).toThrow(/0 entry chunks/);
    expect(() => firstPageFiles({ a: { file: 'a.js', isEntry: true } })).toThrow(/no chunk for/);
    expect(() =>
      firstPageFiles({ a: { file: 'a.js', isEntry: true, imports: ['_gone'] }, [FIRST_PAGE_SOURCE]: { file: 'f.js' } }),
    ).toThrow(/_gone/);
  });

  it('measures gzip size', () => {
    expect(gzipSize('a'.repeat(100_000))).toBeLessThan(1_000);
  });
});
