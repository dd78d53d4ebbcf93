/**
 * What an onboarding is asked (the stored input, the secret beside it), its steps and the
 * service's options: the types the service, its jobs and their records share, in a module none
 * of them owns, so that none imports another back.
 */
import type { Placement } from '../../core/onboarding/placement.js';
import type { ControllerProxies } from './controller-proxy.js';
import type { Lookup } from './target-policy.js';

/** What is stored in Job.input: everything the operator asked for, except the secret. */
export interface OnboardingInput {
  host: string;
  port: number;
  user: string;
  authType: 'password' | 'privateKey';
  hostKeyFingerprint?: string;
  tags: string[];
  placement: Placement;
  install: boolean;
  /** Explicit identity / name; derived from the hardware otherwise (agent/identity.ts). */
  identity?: string;
  name?: string;
}

export interface OnboardingSecret {
  password?: string;
  privateKey?: string;
  passphrase?: string;
}

export type StepName = 'connect' | 'facts' | 'packages' | 'placement' | 'hello' | 'plan' | 'done';

export interface OnboardingOptions {
  /** Where `npm run agent:bundle` wrote the agent (default dist/agent). */
  bundleDir?: string;
  /** host:port an on-router agent dials (default: the gRPC address as bound). */
  agentControllerAddress?: string;
  /** Install root on the router for the on-router placement (tests: a scratch directory). */
  onRouterPrefix?: string;
  helloTimeoutMs?: number;
  planTimeoutMs?: number;
  /** Onboarding jobs running at once in this process (in-process runner). */
  concurrency?: number;
  sshConnectTimeoutMs?: number;
  /** Test hook: runs before each step (e.g. to make the router vanish mid-job). */
  beforeStep?: (jobId: string, step: StepName) => Promise<void> | void;
  /** Overrides for every controller-hosted proxy agent. */
  proxyAgent?: ConstructorParameters<typeof ControllerProxies>[0]['agent'];
  /** Test hook: how onboarding target host names resolve (default: the system resolver). */
  resolveHost?: Lookup;
}
