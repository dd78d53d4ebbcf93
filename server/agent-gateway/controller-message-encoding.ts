import { ControllerMessage } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

type Body = NonNullable<ControllerMessage['body']>;

/** Bodies marked as sent to many streams, and their bytes once encoded. */
const sharedBodies = new WeakMap<Body, Uint8Array | null>();

/**
 * Marks a message body that goes to many streams unchanged (a rollout batch's desired state,
 * its spec a Struct of dozens of values): it is encoded once, not once per stream. The body
 * must not change afterwards.
 */
export function shareBody<B extends Body>(body: B): B {
  if (!sharedBodies.has(body)) sharedBodies.set(body, null);
  return body;
}

/**
 * ControllerMessage's serializer. A shared body's bytes follow the stream's own seq and
 * sentAt: fields are written in number order and the body's are the highest, so the bytes
 * are the ones ControllerMessage.encode writes.
 */
export function encodeControllerMessage(message: ControllerMessage): Buffer {
  const body = message.body;
  const shared = body ? sharedBodies.get(body) : undefined;
  if (!body || shared === undefined) return Buffer.from(ControllerMessage.encode(message).finish());
  let bodyBytes = shared;
  if (!bodyBytes) {
    bodyBytes = ControllerMessage.encode({ seq: 0, sentAt: undefined, body }).finish();
    sharedBodies.set(body, bodyBytes);
  }
  const head = ControllerMessage.encode({ seq: message.seq, sentAt: message.sentAt, body: undefined }).finish();
  return Buffer.concat([head, bodyBytes]);
}
