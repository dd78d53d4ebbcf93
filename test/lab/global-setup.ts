/**
 * The lab tier's one setup: the BPF objects and wf-tcx helpers the checks ship to the guests, and
 * the lab's SSH key, made here once so the two files that boot guests side by side find it.
 */
import { buildBpfObjects } from '../../lab/bpf-objects.js';
import { labKeyPair } from '../../lab/image-cache.js';

export default async function setup(): Promise<void> {
  buildBpfObjects();
  await labKeyPair();
}
