import { classifyFetchError, classifyHttpStatus, type AttemptResult } from './delivery-attempt.js';

/** So much of a refusing receiver's answer is kept: enough for Slack's "invalid_token" or a JSON error. */
const ANSWER_CHARS = 200;

/**
 * One POST of a JSON body, classified. Redirects are not followed: a POST turned into a GET
 * after a 301 would drop the message, and a receiver is configured by its final URL.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<AttemptResult> {
  let res: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'wrtfleet', ...headers },
      body,
      redirect: 'manual',
      signal,
    });
  } catch (err) {
    return classifyFetchError(err, timeoutMs);
  }
  const outcome = classifyHttpStatus(res.status);
  let answer = '';
  try {
    // Read (and so release the connection) within the same time limit.
    answer = (await res.text()).trim();
  } catch (err) {
    if (outcome !== 'delivered') return { ...classifyFetchError(err, timeoutMs), statusCode: res.status };
  }
  if (outcome === 'delivered') return { outcome, statusCode: res.status };
  const redirect =
    res.status >= 300 && res.status < 400 ? ' (redirects are not followed: configure the final URL)' : '';
  const said = answer ? `: ${answer.slice(0, ANSWER_CHARS).replace(/\s+/g, ' ')}` : '';
  return { outcome, statusCode: res.status, error: `HTTP ${res.status}${redirect}${said}` };
}
