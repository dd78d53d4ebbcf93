import type { AccountChange } from '../../../auth/operator-accounts.js';
import { ApiError } from '../../../http/api-error.js';

/** The account of a change, or the API error its failure is. */
export function changed(result: AccountChange, name: string) {
  if (result.ok) return result.account;
  if (result.reason === 'exists') throw new ApiError(409, 'conflict', `an account named "${name}" exists already`);
  if (result.reason === 'wrong_password') throw new ApiError(403, 'wrong_password', 'the current password is wrong');
  throw new ApiError(404, 'not_found', `no account named "${name}"`);
}
