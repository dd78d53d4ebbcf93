/**
 * What an operator can do to one router from its page: the command kinds of
 * POST /v1/routers/{id}/commands, decommissioning and re-enrolment, each with the scope the
 * controller demands (server/commands/command-kinds.ts, server/routes/v1/enrollment-tokens/index.ts) and the
 * sentence its confirmation shows. Pure, unit-tested.
 */
import type { Scope } from '../../app/scopes.js';

export type RouterActionId =
  'check_drift' | 'reprobe' | 'reapply' | 'rollback' | 'detach' | 're_enroll' | 'decommission';

export interface RouterAction {
  id: RouterActionId;
  label: string;
  scope: Scope;
  /** A command (followed live) or a direct call. */
  via: 'command' | 'call';
  danger: boolean;
  /** What will happen, said in the confirmation. */
  explain: string;
}

export const ROUTER_ACTIONS: readonly RouterAction[] = [
  {
    id: 'check_drift',
    label: 'Check drift',
    scope: 'write',
    via: 'command',
    danger: false,
    explain: 'The agent compares the router with its applied plan now and reports what differs. Nothing is changed.',
  },
  {
    id: 'reprobe',
    label: 'Re-probe',
    scope: 'write',
    via: 'command',
    danger: false,
    explain: 'The agent probes the router again (offload, eBPF, TCX) and reports its capabilities.',
  },
  {
    id: 'reapply',
    label: 'Re-apply',
    scope: 'write',
    via: 'command',
    danger: false,
    explain: 'The agent applies its applied revision again, with a commit-confirm window as for any apply.',
  },
  {
    id: 'rollback',
    label: 'Roll back',
    scope: 'write',
    via: 'command',
    danger: true,
    explain: 'The router goes back to the revision it ran before the current one.',
  },
  {
    id: 'detach',
    label: 'Detach',
    scope: 'admin',
    via: 'command',
    danger: true,
    explain: 'Every program and table of wrtfleet is removed from the router; it runs nothing of a profile afterwards.',
  },
  {
    id: 're_enroll',
    label: 'Rotate credentials',
    scope: 'admin',
    via: 'call',
    danger: false,
    explain:
      'A single-use re-enrolment token for this router is created. When the agent enrolls with it, the router gets a new certificate and its old certificates are revoked. The token is shown once.',
  },
  {
    id: 'decommission',
    label: 'Decommission',
    scope: 'admin',
    via: 'call',
    danger: true,
    explain:
      "The router's certificates are revoked, its stream is closed and it is refused from now on. Its history stays.",
  },
];

/**
 * Re-enrolment of a decommissioned router brings it back into the fleet (the enrollment clears
 * its decommission), which is not what "Rotate credentials" says.
 */
const BRING_BACK: Pick<RouterAction, 'label' | 'explain'> = {
  label: 'Bring back (re-enroll)',
  explain:
    'A single-use re-enrolment token for this router is created. When its agent enrolls with it, the router is back in the fleet with a new certificate, its history kept. The token is shown once.',
};

/**
 * The actions the caller's scopes allow; the rest are not shown (the controller refuses them
 * anyway). A decommissioned router runs nothing of ours: the one thing left is bringing it back.
 */
export function actionsFor(can: (scope: Scope) => boolean, decommissioned: boolean): RouterAction[] {
  const allowed = ROUTER_ACTIONS.filter((a) => can(a.scope));
  if (!decommissioned) return allowed;
  return allowed.filter((a) => a.id === 're_enroll').map((a) => ({ ...a, ...BRING_BACK }));
}

/** A command target's state in words for the result line. */
export function targetStateText(state: string): string {
  return state.replace(/_/g, ' ');
}
