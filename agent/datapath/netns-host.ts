import type { CommandResult, RouterHost, RunOptions } from '../host/host.js';

/**
 * A RouterHost whose commands run inside a named network namespace, for tests and for a
 * site box that hosts a router namespace.
 *
 * Uses `nsenter --net=/run/netns/NS` rather than `ip netns exec`: the latter also unshares
 * the mount namespace and remounts /sys, which hides the bpffs mounted at /sys/fs/bpf, so
 * pinned programs and links would be invisible to tc, bpftool and wf-tcx. bpffs itself is
 * not per network namespace, so pin paths must still be unique across namespaces.
 * Files are read and written through the inner host unchanged.
 */
export class NetnsHost implements RouterHost {
  readonly description: string;

  constructor(
    private readonly inner: RouterHost,
    readonly netns: string,
  ) {
    if (!/^[A-Za-z0-9_.-]+$/.test(netns)) throw new Error(`bad netns name ${netns}`);
    this.description = `${inner.description} netns ${netns}`;
  }

  run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    return this.inner.run(['nsenter', `--net=/run/netns/${this.netns}`, '--', ...argv], options);
  }

  readFile(path: string): Promise<string | null> {
    return this.inner.readFile(path);
  }

  readBinary(path: string): Promise<Buffer | null> {
    return this.inner.readBinary(path);
  }

  writeFile(path: string, data: string | Buffer, mode?: number): Promise<void> {
    return this.inner.writeFile(path, data, mode);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
