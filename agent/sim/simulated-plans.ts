import { predictCapabilities, type PredictedCapabilities } from '../../core/capabilities.js';
import type { RouterFacts } from '../../core/facts/index.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { planDesired } from '../apply/desired-plan.js';

/**
 * The plans the simulated routers' agents resolved, by the facts object and the desired spec's
 * canonical JSON. Validation and planning are pure, and the routers of one model share their
 * facts: a simulated fleet validates and resolves each (model, spec) once, as it reads each
 * captured tree once, and its routers' agent states hold one plan between them. Real routers
 * each do it on their own CPU, in parallel; here every simulated router shares the machine
 * with the controller being measured.
 */
const MEMO_SIZE = 32;
type Planned = ReturnType<typeof planDesired>;
const plansByFacts = new WeakMap<RouterFacts, Map<string, Planned>>();

/** planDesired for the routers of one model (ApplyManagerOptions.plan), remembered per spec. */
export function sharedPlanner(facts: RouterFacts): typeof planDesired {
  return (desired, router) => {
    let plans = plansByFacts.get(facts);
    if (!plans) plansByFacts.set(facts, (plans = new Map()));
    const key = canonicalJson(desired.spec ?? {});
    let planned = plans.get(key);
    if (planned === undefined) {
      planned = planDesired(desired, router);
      // A failure is not remembered: the next DesiredState tries again.
      planned.catch(() => plans.delete(key));
      // Oldest first out: a long test run sends many specs, a fleet a few.
      if (plans.size >= MEMO_SIZE) plans.delete(plans.keys().next().value!);
      plans.set(key, planned);
    }
    return planned;
  };
}

const predictions = new WeakMap<RouterFacts, PredictedCapabilities>();

/** What the facts of a model predict, once for the routers sharing them. */
export function sharedPrediction(facts: RouterFacts): PredictedCapabilities {
  let predicted = predictions.get(facts);
  if (!predicted) predictions.set(facts, (predicted = predictCapabilities(facts)));
  return predicted;
}
