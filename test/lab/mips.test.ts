/**
 * The big-endian guest (a 6.1 kernel and a static userland cross-built from Debian's sources;
 * ath79 routers such as the QCA9558 are mips_24kc): every lab check registered for it.
 */
import { describeLabChecks } from './lab-checks.js';

describeLabChecks('mips');
