import { WrappedHost, type CommandResult, type RouterHost, type RunOptions } from '../../core/host/router-host.js';

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
export class NetnsHost extends WrappedHost {
  constructor(
    inner: RouterHost,
    readonly netns: string,
  ) {
    super(inner, `${inner.description} netns ${netns}`);
    if (!/^[A-Za-z0-9_.-]+$/.test(netns)) throw new Error(`bad netns name ${netns}`);
  }

  override run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    return this.inner.run(['nsenter', `--net=/run/netns/${this.netns}`, '--', ...argv], options);
  }
}
