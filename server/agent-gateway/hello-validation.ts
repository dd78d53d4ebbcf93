import type { Hello } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

/**
 * A router identity is used as a database key, a log field and a
 * certificate subject, so it is held to a conservative alphabet: letters, digits and the
 * punctuation real identities use (board names like "tplink,archer-c7-v2", MACs with ':').
 */
export const ROUTER_IDENTITY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:,@/+-]{0,127}$/;
const MAX_TEXT = 256;
const MAX_LIST = 64;

export class HelloRejected extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function text(field: string, value: string, { required = false } = {}): void {
  if (required && value.length === 0) throw new HelloRejected(field, `${field} is required`);
  if (value.length > MAX_TEXT) throw new HelloRejected(field, `${field} is longer than ${MAX_TEXT} characters`);
  // Control characters in a fact would end up in logs and the admin UI verbatim.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are rejected
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new HelloRejected(field, `${field} contains control characters`);
}

/** Checks a Hello before anything in it reaches storage; throws HelloRejected naming the field. */
export function validateHello(hello: Hello): void {
  const identity = hello.router?.identity ?? '';
  if (!identity) throw new HelloRejected('router.identity', 'router.identity is required');
  if (!ROUTER_IDENTITY_PATTERN.test(identity)) {
    throw new HelloRejected(
      'router.identity',
      'router.identity must be 1-128 characters of [A-Za-z0-9._:,@/+-], starting with a letter or digit',
    );
  }
  text('router.name', hello.router?.name ?? '');
  text('agent.version', hello.agent?.version ?? '', { required: true });
  const facts = hello.facts;
  if (facts) {
    for (const field of ['soc', 'arch', 'kernel', 'modelId', 'modelName', 'boardName', 'cpuModel'] as const) {
      text(`facts.${field}`, facts[field]);
    }
    for (const field of ['wanDevices', 'lanDevices', 'unknown'] as const) {
      if (facts[field].length > MAX_LIST)
        throw new HelloRejected(`facts.${field}`, `facts.${field} has more than ${MAX_LIST} entries`);
    }
    if (Object.keys(facts.packages).length > MAX_LIST * 4)
      throw new HelloRejected('facts.packages', 'facts.packages has too many entries');
  }
}
