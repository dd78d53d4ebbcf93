import type { Renewed } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { heapSettler } from '../heap-settle.js';
import type { AgentCredentials } from './agent-credentials.js';

/** A controller message as renewal reads it: only a `renewed` body matters. */
export interface RenewableMessage {
  body?: { $case: string; value: unknown };
}

/** The bits of ControllerLink renewal needs (kept structural so this module does not own the link). */
export interface RenewableLink {
  /** The message's seq on the live stream, 0 when there is none. */
  send(body: { $case: 'renewRequest'; value: { csrPem: string } }): number;
  on(event: 'welcome' | 'disconnected', listener: () => void): unknown;
  on(event: 'message', listener: (message: RenewableMessage) => void): unknown;
  off(event: 'welcome' | 'disconnected', listener: () => void): unknown;
  off(event: 'message', listener: (message: RenewableMessage) => void): unknown;
  /** Next connection on a new channel, so the TLS handshake presents the renewed certificate. */
  renewChannel?(): void;
}

/**
 * Renews the certificate over the live, authenticated stream before it expires: checks on
 * every Welcome and then periodically; at most one request in flight. Returns a stop function.
 */
export function keepRenewed(
  link: RenewableLink,
  creds: AgentCredentials,
  options: { checkEveryMs?: number; onError?: (err: Error) => void } = {},
): () => void {
  let inFlight = false;
  const check = () => {
    if (inFlight || !creds.renewalDue()) return;
    inFlight = true;
    creds
      .renewalRequest()
      .then((csrPem) => {
        if (!link.send({ $case: 'renewRequest', value: { csrPem } })) inFlight = false;
      })
      .catch((err: Error) => {
        inFlight = false;
        options.onError?.(err);
      });
  };
  const onMessage = (message: RenewableMessage) => {
    if (message.body?.$case !== 'renewed') return;
    creds
      .applyRenewal(message.body.value as Renewed)
      .then(() => link.renewChannel?.())
      .catch((err: Error) => options.onError?.(err))
      .finally(() => {
        inFlight = false;
        // The CSR's x509 section and the renewal's objects are garbage now (agent/heap-settle.ts).
        heapSettler.soon();
      });
  };
  // A request lost with its stream is asked again on the next Welcome.
  const onDisconnected = () => (inFlight = false);
  link.on('welcome', check);
  link.on('message', onMessage);
  link.on('disconnected', onDisconnected);
  const timer = setInterval(check, options.checkEveryMs ?? 60_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    link.off('welcome', check);
    link.off('message', onMessage);
    link.off('disconnected', onDisconnected);
  };
}
