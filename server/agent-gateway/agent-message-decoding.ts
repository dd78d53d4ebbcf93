import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { AgentMessage, AgentServiceService } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { Struct } from '../../proto/gen/google/protobuf/struct.js';
import { encodeControllerMessage } from './controller-message-encoding.js';

/** An agent message the controller could not decode, and the field that made it fail when known. */
export interface UndecodableMessage {
  undecodable: { field: string; reason: string };
}

/** The free-form Structs an agent sends, by their field numbers from AgentMessage down. */
const STRUCT_FIELDS: { path: number[]; field: string }[] = [
  { path: [10, 3, 15], field: 'hello.facts.extra' },
  { path: [12, 5], field: 'applyResult.evidence' },
];

/** The bytes of the last length-delimited field `fieldNo` of one encoded message, if any. */
function fieldBytes(bytes: Uint8Array, fieldNo: number): Uint8Array | undefined {
  const reader = new BinaryReader(bytes);
  let found: Uint8Array | undefined;
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no === fieldNo && wireType === WireType.LengthDelimited) found = reader.bytes();
    else reader.skip(wireType, no);
  }
  return found;
}

/** Which Struct failed to decode, so the agent's status names it. */
function failingField(bytes: Uint8Array): string {
  for (const { path, field } of STRUCT_FIELDS) {
    try {
      let inner: Uint8Array | undefined = bytes;
      for (const no of path) inner = inner && fieldBytes(inner, no);
      if (inner) Struct.decode(inner);
    } catch {
      return field;
    }
  }
  return 'message';
}

/**
 * Decodes an agent message without throwing: grpc-js answers a throwing deserializer with
 * INTERNAL, but a message too deeply nested or corrupt is the agent's error, so the gateway
 * turns the marker this returns into INVALID_ARGUMENT naming the field.
 */
export function decodeAgentMessage(bytes: Buffer): AgentMessage | UndecodableMessage {
  try {
    return AgentMessage.decode(bytes);
  } catch (err) {
    return { undecodable: { field: failingField(bytes), reason: (err as Error).message } };
  }
}

export function isUndecodable(message: AgentMessage | UndecodableMessage): message is UndecodableMessage {
  return 'undecodable' in message;
}

/**
 * The generated service with Connect's requests decoded by decodeAgentMessage and its
 * responses encoded by encodeControllerMessage (shared bodies encoded once).
 */
export const AgentServiceDefinition = {
  ...AgentServiceService,
  connect: {
    ...AgentServiceService.connect,
    requestDeserialize: decodeAgentMessage,
    responseSerialize: encodeControllerMessage,
  },
};
