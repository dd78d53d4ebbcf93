import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog, AuditTransaction } from '../audit/audit-log.js';
import { decoyHash, hashPassword, passwordChecks, verifyPassword } from './password-hash.js';
import { isRole, type Role } from './operator-roles.js';
import type { OperatorSessions } from './operator-sessions.js';

/** Who makes a change and under which request: what its audit event records. */
export interface ChangeContext {
  actor: string;
  requestId?: string | null;
}

type AccountRow = Awaited<ReturnType<PrismaClient['operatorAccount']['findUniqueOrThrow']>>;

/** An account as listings and audit events show it: never the password hash. */
export function accountView(row: AccountRow) {
  return {
    name: row.name,
    role: (isRole(row.role) ? row.role : 'read') as Role,
    disabled: row.disabled,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    lastSignInAt: row.lastSignInAt?.toISOString() ?? null,
  };
}
export type AccountView = ReturnType<typeof accountView>;

/**
 * The outcome of a sign-in's check. The caller answers every failure alike; the reason is for
 * the audit, which must not record an unknown name (it may be a password typed in the wrong field).
 */
export type SignInCheck =
  { ok: true; account: AccountView } | { ok: false; reason: 'unknown_name' | 'wrong_password' | 'disabled' };

/** The outcome of a change to an account that may not exist. */
export type AccountChange =
  { ok: true; account: AccountView } | { ok: false; reason: 'not_found' | 'exists' | 'wrong_password' };

/**
 * Operator accounts: name, role, scrypt password hash, disabled flag. Every change commits
 * together with its audit event; disabling an account, resetting or changing its password and
 * deleting it end its sessions in the same transaction, so no session outlives the change.
 */
export class OperatorAccounts {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
    /** Told after a change that ended an account's sessions, so this replica forgets them at once. */
    private readonly sessions?: OperatorSessions,
  ) {}

  async create(input: { name: string; role: Role; password: string }, ctx: ChangeContext): Promise<AccountChange> {
    const passwordHash = await hashPassword(input.password);
    return this.audit.record(async (tx) => {
      if (await tx.operatorAccount.findUnique({ where: { name: input.name } }))
        return { result: { ok: false, reason: 'exists' } as AccountChange, event: null };
      const row = await tx.operatorAccount.create({
        data: { name: input.name, role: input.role, passwordHash, createdBy: ctx.actor },
      });
      const account = accountView(row);
      return {
        result: { ok: true, account } as AccountChange,
        event: this.event(ctx, 'account.created', row.name, { after: account }),
      };
    });
  }

  async list(limit = 1000): Promise<AccountView[]> {
    const rows = await this.db.operatorAccount.findMany({ orderBy: { name: 'asc' }, take: limit });
    return rows.map(accountView);
  }

  async get(name: string): Promise<AccountView | null> {
    const row = await this.db.operatorAccount.findUnique({ where: { name } });
    return row ? accountView(row) : null;
  }

  async count(): Promise<number> {
    return this.db.operatorAccount.count();
  }

  /** Changes role and/or disabled; disabling ends the account's sessions at once. */
  async update(name: string, change: { role?: Role; disabled?: boolean }, ctx: ChangeContext): Promise<AccountChange> {
    const result = await this.audit.record(async (tx) => {
      const before = await tx.operatorAccount.findUnique({ where: { name } });
      if (!before) return { result: { ok: false, reason: 'not_found' } as AccountChange, event: null };
      const row = await tx.operatorAccount.update({
        where: { name },
        data: { role: change.role ?? before.role, disabled: change.disabled ?? before.disabled },
      });
      // A role change ends sessions too: a session's scopes are read at each request, but an
      // open console should sign in again to see what the new role may do.
      if (row.disabled || row.role !== before.role) await endSessions(tx, name);
      const action =
        change.disabled === true && !before.disabled
          ? 'account.disabled'
          : change.disabled === false && before.disabled
            ? 'account.enabled'
            : 'account.updated';
      return {
        result: { ok: true, account: accountView(row) } as AccountChange,
        event: this.event(ctx, action, name, { before: accountView(before), after: accountView(row) }),
      };
    });
    this.sessions?.forget(name);
    return result;
  }

  /** An admin sets a new password; every session of the account ends. */
  async resetPassword(name: string, password: string, ctx: ChangeContext): Promise<AccountChange> {
    const passwordHash = await hashPassword(password);
    const result = await this.audit.record(async (tx) => {
      if (!(await tx.operatorAccount.findUnique({ where: { name } })))
        return { result: { ok: false, reason: 'not_found' } as AccountChange, event: null };
      const row = await tx.operatorAccount.update({ where: { name }, data: { passwordHash } });
      await endSessions(tx, name);
      return {
        result: { ok: true, account: accountView(row) } as AccountChange,
        event: this.event(ctx, 'account.password_reset', name, {}),
      };
    });
    this.sessions?.forget(name);
    return result;
  }

  /** The account's own change, which needs the old password; its other sessions end. */
  async changeOwnPassword(
    name: string,
    oldPassword: string,
    newPassword: string,
    ctx: ChangeContext & { keepSessionHash?: string },
  ): Promise<AccountChange> {
    // The lookup and both hashes take one slot of the process-wide bound (GateFull when none is free).
    const checked = await passwordChecks(async () => {
      const row = await this.db.operatorAccount.findUnique({ where: { name } });
      if (!row) return 'not_found' as const;
      if (!(await verifyPassword(oldPassword, row.passwordHash))) return 'wrong_password' as const;
      return { passwordHash: await hashPassword(newPassword) };
    });
    if (typeof checked === 'string') return { ok: false, reason: checked };
    const { passwordHash } = checked;
    const result = await this.audit.record(async (tx) => {
      const updated = await tx.operatorAccount.update({ where: { name }, data: { passwordHash } });
      await endSessions(tx, name, ctx.keepSessionHash);
      return {
        result: { ok: true, account: accountView(updated) } as AccountChange,
        event: this.event(ctx, 'account.password_changed', name, {}),
      };
    });
    this.sessions?.forget(name);
    return result;
  }

  /** Deletes the account; its sessions go with it (the foreign key cascades). */
  async delete(name: string, ctx: ChangeContext): Promise<AccountChange> {
    const result = await this.audit.record(async (tx) => {
      const before = await tx.operatorAccount.findUnique({ where: { name } });
      if (!before) return { result: { ok: false, reason: 'not_found' } as AccountChange, event: null };
      await tx.operatorAccount.delete({ where: { name } });
      return {
        result: { ok: true, account: accountView(before) } as AccountChange,
        event: this.event(ctx, 'account.deleted', name, { before: accountView(before) }),
      };
    });
    this.sessions?.forget(name);
    return result;
  }

  /**
   * The account a name and password sign in as, or why not: unknown name, wrong password or
   * disabled account (the caller is told nothing more). An unknown name still costs a full
   * scrypt verification, so timing does not reveal which names exist. The check waits for a
   * slot of the process-wide bound, and throws GateFull when too many wait already.
   */
  async verify(name: string, password: string): Promise<SignInCheck> {
    // The lookup waits for the slot too: a check refused as busy costs no query either.
    const { row, matches } = await passwordChecks(async () => {
      const found = await this.db.operatorAccount.findUnique({ where: { name } });
      return { row: found, matches: await verifyPassword(password, found?.passwordHash ?? (await decoyHash())) };
    });
    if (!row) return { ok: false, reason: 'unknown_name' };
    if (!matches) return { ok: false, reason: 'wrong_password' };
    if (row.disabled) return { ok: false, reason: 'disabled' };
    return { ok: true, account: accountView(row) };
  }

  private event(
    ctx: ChangeContext,
    action: string,
    name: string,
    states: { before?: AccountView; after?: AccountView },
  ) {
    return {
      actor: ctx.actor,
      action,
      targetType: 'account',
      targetId: name,
      ...states,
      requestId: ctx.requestId ?? null,
    };
  }
}

/** Ends every open session of an account (but `keepHash`, the caller's own). */
async function endSessions(tx: AuditTransaction, accountName: string, keepHash?: string): Promise<void> {
  await tx.operatorSession.updateMany({
    where: { accountName, endedAt: null, ...(keepHash ? { NOT: { idHash: keepHash } } : {}) },
    data: { endedAt: new Date() },
  });
}
