/**
 * canonicalJson, the current one beside the first (kept in test/core), on what it is used for:
 * a plan's hash input (every agent, each desired state) and an audit event's body (the
 * controller, each event). Rounds alternate the two; medians of µs per call.
 *
 * Run: npm run -s bench:canonical-json
 * knobs: WF_BENCH_ROUNDS (7), WF_BENCH_CALLS (20000 per round)
 */
import { randomUUID } from 'node:crypto';
import { collectFacts } from '../../core/facts/index.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { planHashInput, resolvePlan } from '../../core/plan.js';
import { validateProfileSpec } from '../../core/profile-spec.js';
import { FixtureHost } from '../../agent/sim/fixture-host.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import { referenceCanonicalJson } from '../../test/core/canonical-json-reference.js';
import { median } from '../statistics.js';

const ROUNDS = Number(process.env.WF_BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.WF_BENCH_CALLS ?? 20_000);

async function inputs(): Promise<Record<string, unknown>> {
  const [root] = await fixtureModels(defaultFixturesDir());
  const facts = await collectFacts(new FixtureHost(root!));
  const spec = validateProfileSpec({ l3Rewrite: { ttl: { value: 65 } } });
  if (!spec.ok) throw new Error('the bench spec is invalid');
  const plan = resolvePlan(spec.spec, { facts });
  const auditBody = {
    id: randomUUID(),
    at: new Date(),
    actor: 'agent:sim.mt7621:0001',
    action: 'router.apply_result',
    targetType: 'router',
    targetId: randomUUID(),
    before: null,
    after: { status: 'applied', profile: 'scale', revision: 2, planHash: plan.planHash, evidence: { simulated: true } },
    diff: null,
    requestId: null,
  };
  return { 'plan hash input': planHashInput(plan), 'audit event body': auditBody };
}

function perCall(f: (v: unknown) => string, value: unknown): number {
  const start = process.hrtime.bigint();
  let length = 0;
  for (let i = 0; i < CALLS; i++) length += f(value).length;
  if (length === 0) throw new Error('nothing was written');
  return Number(process.hrtime.bigint() - start) / CALLS / 1000;
}

for (const [name, value] of Object.entries(await inputs())) {
  if (canonicalJson(value) !== referenceCanonicalJson(value)) throw new Error(`${name}: the two disagree`);
  const current: number[] = [];
  const first: number[] = [];
  perCall(canonicalJson, value);
  perCall(referenceCanonicalJson, value);
  for (let round = 0; round < ROUNDS; round++) {
    current.push(perCall(canonicalJson, value));
    first.push(perCall(referenceCanonicalJson, value));
  }
  const [c, f] = [median(current), median(first)];
  console.log(
    `${name} (${canonicalJson(value).length} bytes): current ${c.toFixed(2)} µs, first ${f.toFixed(2)} µs, ${(f / c).toFixed(2)}x`,
  );
}
