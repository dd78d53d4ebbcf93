import type { ChannelCredentials } from '@grpc/grpc-js';
import { predictCapabilities, type PredictedCapabilities } from './capabilities.js';
import { ControllerLink, type ReconnectPolicy } from './controller-link.js';
import { collectFacts, type RouterFacts } from './facts/index.js';
import { helloMessage } from './hello.js';
import type { RouterHost } from './host/host.js';
import { deriveRouterIdentity } from './identity.js';

export interface RouterAgentOptions {
  host: RouterHost;
  controller: string;
  credentials?: ChannelCredentials;
  placement: 'on_router' | 'proxy';
  /** Overrides the identity derived from the hardware. */
  identity?: string;
  /** Human name; defaults to the identity. */
  name?: string;
  reconnect?: Partial<ReconnectPolicy>;
}

/**
 * One managed router: learns what the router is (through its RouterHost, so the same code
 * serves the on-router and proxy placements and simulated fixtures) and keeps it connected
 * to the controller. Facts are collected again on every (re)connection, so a router that
 * was upgraded while the controller was away reports its new kernel in the next Hello.
 */
export class RouterAgent {
  readonly link: ControllerLink;
  facts: RouterFacts | undefined;
  capabilities: PredictedCapabilities | undefined;
  identity: string | undefined;

  constructor(private readonly options: RouterAgentOptions) {
    this.link = new ControllerLink({
      address: options.controller,
      credentials: options.credentials,
      reconnect: options.reconnect,
      hello: () => this.buildHello(),
    });
  }

  private async buildHello() {
    const facts = await collectFacts(this.options.host);
    const predicted = predictCapabilities(facts);
    this.facts = facts;
    this.capabilities = predicted;
    this.identity ??= this.options.identity ?? (await deriveRouterIdentity(this.options.host, facts));
    return helloMessage({
      identity: this.identity,
      name: this.options.name ?? this.identity,
      placement: this.options.placement,
      facts,
      predicted,
    });
  }

  start(): void {
    this.link.start();
  }

  async stop(): Promise<void> {
    await this.link.stop();
    await this.options.host.close();
  }
}
