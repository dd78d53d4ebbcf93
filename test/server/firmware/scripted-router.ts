import { credentials, Metadata, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import {
  AgentServiceClient,
  type AgentMessage,
  type ControllerMessage,
} from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { Facts } from '../../../proto/gen/wrtfleet/agent/v1/router.js';
import { FirmwareProgress_Step, type FirmwareUpgrade } from '../../../proto/gen/wrtfleet/agent/v1/firmware.js';

/** What a scripted router says it is in its Hello. */
export interface ScriptedFacts {
  board: string;
  target: string;
  release: string;
  revision: string;
  bootId: string;
}

/**
 * A router scripted message by message over a raw Connect stream (insecure controllers only): the
 * tests of the controller's side of an upgrade say exactly what a router reports, when it drops
 * and what it comes back as, without an agent in between.
 */
export class ScriptedRouter {
  private client: AgentServiceClient;
  private stream: ClientDuplexStream<AgentMessage, ControllerMessage> | undefined;
  private seq = 0;
  readonly received: ControllerMessage[] = [];

  constructor(
    private address: string,
    readonly identity: string,
    public facts: ScriptedFacts,
  ) {
    this.client = new AgentServiceClient(address, credentials.createInsecure());
  }

  /** Opens a stream with a Hello of the current facts; resolves at the Welcome. */
  async connect(): Promise<void> {
    const stream = this.client.connect();
    this.stream = stream;
    stream.on('data', (m: ControllerMessage) => this.received.push(m));
    stream.on('error', () => undefined);
    this.send({
      $case: 'hello',
      value: {
        router: { identity: this.identity, name: this.identity },
        agent: { version: 'test', placement: 2, proxyHost: '' },
        facts: Facts.fromPartial({
          boardName: this.facts.board,
          kernel: '5.15.150',
          openwrt: { release: this.facts.release, target: this.facts.target, revision: this.facts.revision, arch: '' },
        }),
        capabilities: undefined,
        applied: undefined,
        live: undefined,
        bootId: this.facts.bootId,
      },
    });
    await this.waitFor('welcome');
    this.send({ $case: 'heartbeat', value: { uptimeSeconds: 1 } });
  }

  send(body: NonNullable<AgentMessage['body']>): void {
    this.seq += 1;
    this.stream!.write({ seq: this.seq, sentAt: new Date(), body });
  }

  progress(upgradeId: string, step: FirmwareProgress_Step, extra: { failed?: boolean; detail?: string } = {}): void {
    this.send({
      $case: 'firmwareProgress',
      value: {
        upgradeId,
        step,
        failed: extra.failed ?? false,
        detail: extra.detail ?? '',
        bytesDone: 0,
      },
    });
  }

  /** Every step up to and including the flash, as a router that does not fail reports them. */
  flash(upgradeId: string): void {
    for (const step of [
      FirmwareProgress_Step.STEP_CHECKING,
      FirmwareProgress_Step.STEP_TRANSFERRING,
      FirmwareProgress_Step.STEP_VERIFYING,
      FirmwareProgress_Step.STEP_TESTING,
      FirmwareProgress_Step.STEP_FLASHING,
    ])
      this.progress(upgradeId, step);
  }

  /** The stream drops (the router reboots). */
  drop(): void {
    this.stream?.cancel();
    this.stream = undefined;
  }

  /** Comes back after a reboot: another boot id, and whatever release the script says. */
  async reboot(release: string, revision: string): Promise<void> {
    this.drop();
    this.facts = { ...this.facts, release, revision, bootId: `${this.facts.bootId}-next` };
    await this.connect();
  }

  async waitFor<C extends NonNullable<ControllerMessage['body']>['$case']>(
    kind: C,
    after = 0,
    timeoutMs = 15_000,
  ): Promise<Extract<NonNullable<ControllerMessage['body']>, { $case: C }>['value']> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.slice(after).find((m) => m.body?.$case === kind);
      if (found) return (found.body as unknown as { value: never }).value;
      if (Date.now() > deadline)
        throw new Error(
          `${this.identity}: no ${kind} after message ${after} within ${timeoutMs} ms (got ${this.received.map((m) => m.body?.$case).join(', ')})`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  upgrades(): FirmwareUpgrade[] {
    return this.received.flatMap((m) => (m.body?.$case === 'firmwareUpgrade' ? [m.body.value] : []));
  }

  /** DownloadFirmware as this router: the bytes, or the gRPC error. */
  download(sha256: string, offset = 0): Promise<Buffer | ServiceError> {
    const metadata = new Metadata();
    metadata.set('wrtfleet-identity', this.identity);
    const call = this.client.downloadFirmware({ sha256, offset }, metadata);
    const parts: Buffer[] = [];
    return new Promise((resolve) => {
      call.on('data', (chunk: { data: Uint8Array }) => parts.push(Buffer.from(chunk.data)));
      call.on('error', (err: ServiceError) => resolve(err));
      call.on('end', () => resolve(Buffer.concat(parts)));
    });
  }

  close(): void {
    this.drop();
    this.client.close();
  }
}
