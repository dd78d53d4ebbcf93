import { InvalidSelector } from '../../fleet/selector.js';
import { ApiError } from '../../http/api-error.js';

/** A selector the fleet cannot read (rollouts, plan previews, commands), as the 400 naming the body's selector; null for any other error. */
export function selectorError(err: unknown): ApiError | null {
  if (err instanceof InvalidSelector)
    return new ApiError(400, 'invalid_request', `invalid selector: ${err.message}`, [
      { path: '/selector', in: 'body', message: err.message },
    ]);
  return null;
}
