/** The lab tier's one setup: the BPF objects and wf-tcx helpers the checks ship to the guests. */
import { buildBpfObjects } from '../../lab/bpf-objects.js';

export default function setup(): void {
  buildBpfObjects();
}
