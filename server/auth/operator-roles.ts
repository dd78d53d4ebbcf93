import { Type } from '@sinclair/typebox';
import type { Scope } from './api-tokens.js';

/** An operator account's role: read ⊂ write ⊂ admin, each the scopes of the one before and more. */
export const ROLES = ['read', 'write', 'admin'] as const;
export type Role = (typeof ROLES)[number];

// Titled, so `npm run web:api` gives the console and the CLI this list (api-enums.generated.ts).
export const RoleSchema = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')], {
  title: 'Role',
});

/** The scopes a role's sessions carry: the same scopes API tokens have, so one check serves both. */
const ROLE_SCOPES: Record<Role, Scope[]> = {
  read: ['read'],
  write: ['read', 'write'],
  admin: ['read', 'write', 'admin', 'enroll'],
};

export function scopesOfRole(role: Role): Scope[] {
  return [...ROLE_SCOPES[role]];
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** The role a set of scopes amounts to, for a caller without an account (an API token). */
export function roleOfScopes(scopes: readonly Scope[]): Role | null {
  if (scopes.includes('admin')) return 'admin';
  if (scopes.includes('write')) return 'write';
  if (scopes.includes('read')) return 'read';
  return null;
}
