import { beforeAll, describe, expect, it } from 'vitest';
import { planPreviewLines, planPreviewText } from '../../../core/plan/plan-text.js';
import { loadModelFacts, planFor } from '../../core/plan-models.js';

beforeAll(loadModelFacts);

describe('the plan preview text (CLI and router page)', () => {
  it('says every decision with its reason, including the offload downgrade on MT7621', () => {
    const plan = planFor('kt-km14-102h-mt7621', {
      l3Rewrite: { ttl: { value: 128 } },
      flowOffload: { mode: 'hardware' },
      conflictPolicy: 'prefer-rewrite',
    });
    const lines = planPreviewLines({
      name: 'km14-1',
      effective: { profile: 'home', revision: 3 },
      plan,
      changes: [{ path: '/offload/mode' }],
    });
    expect(lines[0]).toBe(`km14-1: home@3 -> satisfiable (plan ${plan.planHash.slice(0, 12)})`);
    expect(lines[1]).toMatch(/^ {2}datapath: ebpf via tcx {2}programs: .*set_ip_ttl/);
    expect(lines[2]).toBe('  offload: software');
    expect(lines.at(-1)).toBe('  changes: /offload/mode');
    for (const d of plan.decisions) expect(lines).toContain(`  - ${d.topic}: ${d.choice} (${d.reason})`);
    expect(lines.some((l) => /offload-downgraded \(hardware-offloaded flows .*PPE/.test(l))).toBe(true);
  });

  it('says REFUSED with each refusal, and "no profile assigned" without a plan', () => {
    const plan = planFor('tplink-archer-c7-v2', {
      flowOffload: { mode: 'hardware' },
      conflictPolicy: 'prefer-offload',
    });
    expect(plan.satisfiable).toBe(false);
    const text = planPreviewText({ name: 'c7', effective: { profile: 'p', revision: 1 }, plan, changes: [] });
    expect(text).toContain('-> REFUSED');
    for (const r of plan.refusals) expect(text).toContain(`  refused: ${r.reason}`);
    expect(text.split('\n').at(-1)).toBe('  changes: none');
    expect(planPreviewText({ name: 'c7', effective: null, plan: null, changes: [] })).toBe('c7: no profile assigned');
  });
});
