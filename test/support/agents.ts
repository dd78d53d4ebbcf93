import {
  credentials as grpcCredentials,
  Metadata,
  status as GrpcStatus,
  type ChannelCredentials,
  type ServiceError,
} from '@grpc/grpc-js';
import { AgentCredentials } from '../../agent/enrollment/agent-credentials.js';
import { CONTROLLER_VERIFY_OPTIONS, controllerChannelOptions } from '../../agent/enrollment/controller-server-name.js';
import {
  AgentServiceClient,
  type AgentMessage,
  type ControllerMessage,
  type EnrollResponse,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../server/controller.js';
import { enrollThroughController } from '../../server/pki/local-enrollment.js';

/**
 * Enrolls a test agent through the real path (enrollment token, CA pin, CSR over TLS) and
 * returns its credentials; `.linkCredentials` goes to ControllerLink / RouterAgent (`.channelCredentials` to a plain client).
 * The controller must run with mutual TLS (security: { insecureAgents: false }).
 */
export async function enrollTestAgent(
  controller: Controller,
  identity: string,
  name = identity,
): Promise<AgentCredentials> {
  return enrollThroughController(controller.security, controller.grpcAddress, { identity, name }, 'test');
}

export const helloFor = (identity: string, seq = 1): AgentMessage => ({
  seq,
  sentAt: new Date(),
  body: {
    $case: 'hello',
    value: {
      router: { identity, name: identity },
      agent: { version: 'test', placement: 1, proxyHost: '' },
      facts: undefined,
      capabilities: undefined,
      applied: undefined,
      live: undefined,
      bootId: '',
    },
  },
});

export interface OpenStream {
  /** Resolves with the first Welcome, or rejects when the stream ends before one. */
  welcome: Promise<ControllerMessage>;
  /** Resolves with how the controller ended the stream (status code, details, when). */
  ended: Promise<{ code: number; details: string; at: number; received: ControllerMessage[] }>;
  write(message: AgentMessage): void;
  /** Everything the controller sent on this stream so far. */
  received(): ControllerMessage[];
  close(): void;
}

/** One raw Connect stream with the given credentials, saying Hello as `identity`. */
export function openStream(address: string, credentials: ChannelCredentials, identity: string): OpenStream {
  const client = new AgentServiceClient(address, credentials, {
    ...controllerChannelOptions(address),
    'grpc.use_local_subchannel_pool': 1,
  });
  const stream = client.connect();
  const received: ControllerMessage[] = [];
  let onWelcome: (m: ControllerMessage) => void = () => {};
  let onNoWelcome: (e: Error) => void = () => {};
  const welcome = new Promise<ControllerMessage>((resolve, reject) => {
    onWelcome = resolve;
    onNoWelcome = reject;
  });
  welcome.catch(() => undefined);
  const ended = new Promise<{ code: number; details: string; at: number; received: ControllerMessage[] }>((resolve) => {
    let done = false;
    const finish = (code: number, details: string) => {
      if (done) return;
      done = true;
      client.close();
      onNoWelcome(new Error(`stream ended before Welcome: ${GrpcStatus[code]} ${details}`));
      resolve({ code, details, at: Date.now(), received });
    };
    stream.on('data', (m: ControllerMessage) => {
      received.push(m);
      if (m.body?.$case === 'welcome') onWelcome(m);
    });
    stream.on('error', (err: ServiceError) => finish(err.code, err.details));
    stream.on('end', () => finish(GrpcStatus.OK, 'ended'));
  });
  stream.write(helloFor(identity));
  return {
    welcome,
    ended,
    write: (m) => stream.write(m),
    received: () => received,
    close: () => {
      stream.cancel();
      client.close();
    },
  };
}

/** A raw Enroll call over TLS (the controller's CA trusted), to see exactly how the controller answers. */
export function rawEnroll(
  controller: Controller,
  token: string,
  identity: string,
  csrPem: string,
  name = '',
): Promise<{ code: number; details: string; response?: EnrollResponse }> {
  const client = new AgentServiceClient(
    controller.grpcAddress,
    grpcCredentials.createSsl(
      Buffer.from(controller.security.pki!.caCertificatePem),
      null,
      null,
      CONTROLLER_VERIFY_OPTIONS,
    ),
    { ...controllerChannelOptions(controller.grpcAddress), 'grpc.use_local_subchannel_pool': 1 },
  );
  return new Promise((resolve) => {
    client.enroll(
      { token, csrPem, router: { identity, name } },
      new Metadata(),
      { deadline: Date.now() + 10_000 },
      (err: ServiceError | null, response?: EnrollResponse) => {
        client.close();
        resolve(err ? { code: err.code, details: err.details } : { code: GrpcStatus.OK, details: '', response });
      },
    );
  });
}
