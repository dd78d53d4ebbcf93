/**
 * What a scope allows, as the controller decides it (server/auth/api-tokens.ts, `grants`):
 * admin covers everything, write covers read. The console only uses it to hide what the
 * caller may not do; the controller refuses it anyway.
 */
export type Scope = 'read' | 'write' | 'admin' | 'enroll';

export function grants(scopes: readonly string[], needed: Scope): boolean {
  if (scopes.includes('admin')) return true;
  if (needed === 'read') return scopes.includes('read') || scopes.includes('write');
  return scopes.includes(needed);
}
