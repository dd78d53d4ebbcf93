/**
 * The fleet as code's resources in words, for the Fleet intent page. The API types each kind's
 * `spec` loosely (one view schema serves three kinds), but it is the stored form: every default
 * filled in and the selector in today's spelling (server/intent/intent-documents.ts), so these
 * shapes hold for every row it returns.
 */
import { formatSeconds } from '../alerts/alert-format.js';
import { describeWindow } from '../rollouts/firmware-fields.js';
import { describeSelector, type Selector } from '../rollouts/selector-fields.js';

export interface MaintenanceWindow {
  start: string;
  end: string;
  timeZone: string;
}

export interface AssignmentSpec {
  selector: Selector;
  profile: string;
  revision?: number;
  rolloutPolicy?: string;
}

export interface RolloutPolicySpec {
  canary: number;
  batchSize: number;
  maxFailureRatio: number;
  soakSeconds: number;
  resultTimeoutSeconds: number;
  promote: 'auto' | 'manual';
  window?: MaintenanceWindow;
}

export interface FirmwarePolicySpec {
  selector: Selector;
  image: string;
  rolloutPolicy?: string;
}

/** "every router", "tagged site:ams", "SoC MT7621, OpenWrt 23.05": a selector as a list shows it. */
export function selectorWords(selector: Selector | undefined): string {
  return selector ? describeSelector(selector) : 'nothing';
}

/** "home@3" when the assignment pins a revision, "home@latest" when it follows the profile. */
export function profileTarget(spec: Pick<AssignmentSpec, 'profile' | 'revision'>): string {
  return `${spec.profile}@${spec.revision ?? 'latest'}`;
}

/** Without a policy an apply's rollouts use the controller's default strategy. */
export function policyName(name: string | undefined): string {
  return name ?? 'default strategy';
}

/** 0.05 as "5%", 0.125 as "12.5%". */
export function percent(ratio: number): string {
  return `${Math.round(ratio * 1000) / 10}%`;
}

export function soakWords(seconds: number): string {
  return seconds > 0 ? formatSeconds(seconds) : 'none';
}

export function windowWords(window: MaintenanceWindow | undefined): string {
  return window ? describeWindow(window) : 'any time';
}

/** The first 12 hex digits, as a commit is shortened: enough to tell the fleet's images apart. */
export function shortSha(sha256: string): string {
  return sha256.slice(0, 12);
}
