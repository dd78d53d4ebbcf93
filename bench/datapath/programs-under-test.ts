/**
 * What the datapath bench measures besides the loader's own modes: the rewrite configuration every
 * part applies, the empty program (the test runs' floor and the datapath's control), and
 * candidate builds measured next to the current one in the same run.
 */
import { join } from 'node:path';
import { BPF_BUILD_DIR } from '../../agent/datapath/programs.js';
import { PROGRAM_NAMES, type RewriteConfig } from '../../core/programs.js';
import { compileBpfObject } from '../../test/bpf/progrun.js';

export const REWRITE: RewriteConfig = { programs: [...PROGRAM_NAMES], ttl: 64, synWindow: 65535, ipv6HopLimit: false };

/** Another build (e.g. a changed wf_chain): an object with one TC program, attached as compiled. */
export interface Candidate {
  name: string;
  path: string;
}

/** The empty program (the harness floor, and the windows' control), built once per run with the bench's flags. */
let emptyObject: string | undefined;
export const buildEmptyObject = () =>
  (emptyObject ??= compileBpfObject('bench/datapath/empty.bpf.c', join(BPF_BUILD_DIR, 'bench-empty.o')));
