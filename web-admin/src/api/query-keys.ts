/**
 * The query cache's keys, one family per kind of resource. A mutation invalidates a family by
 * its prefix (every page and filter of the router list is `['routers', 'list', …]`), so a
 * change shows everywhere that lists what it changed without naming each query.
 */
export const queryKeys = {
  routers: ['routers'] as const,
  routerList: (query: unknown) => ['routers', 'list', query] as const,
  routerCounts: (filter: unknown) => ['routers', 'counts', filter] as const,
  router: (id: string) => ['router', id] as const,
  routerPart: (id: string, part: string, ...rest: unknown[]) => ['router', id, part, ...rest] as const,
  profiles: ['profiles'] as const,
  profile: (name: string, ...rest: unknown[]) => ['profiles', 'one', name, ...rest] as const,
  specSchema: ['spec-schema'] as const,
  rollouts: ['rollouts'] as const,
  rolloutList: ['rollouts', 'list'] as const,
  rollout: (id: string, ...rest: unknown[]) => ['rollouts', 'one', id, ...rest] as const,
  firmware: ['firmware'] as const,
  firmwareImages: (options: unknown) => ['firmware', 'list', options] as const,
  firmwareImage: (sha256: string, ...rest: unknown[]) => ['firmware', 'one', sha256, ...rest] as const,
  commands: ['commands'] as const,
  command: (id: string, ...rest: unknown[]) => ['commands', 'one', id, ...rest] as const,
  audit: ['audit'] as const,
  accounts: ['accounts'] as const,
  apiTokens: ['api-tokens'] as const,
  enrollmentTokens: ['enrollment-tokens'] as const,
  onboarding: ['onboarding'] as const,
  // Alerts, their summary (the navigation's badge), rules and silences are one family: an
  // acknowledgement or a silence changes what each of them shows.
  alerts: ['alerts'] as const,
  alertList: (query: unknown) => ['alerts', 'list', query] as const,
  alertSummary: ['alerts', 'summary'] as const,
  alertRules: ['alerts', 'rules'] as const,
  silences: ['alerts', 'silences'] as const,
  // The fleet as code's rollout policies, assignments and firmware policies, one list per kind
  // (its path under /v1), read on the Fleet intent page.
  intent: ['intent'] as const,
  intentList: (path: string) => ['intent', 'list', path] as const,
};

export type QueryKey = readonly unknown[];
