/**
 * The big-endian guest (a 6.1 kernel and a static userland cross-built from Debian's sources;
 * ath79 routers such as the QCA9558 are mips_24kc): every lab check registered for it. Then, on
 * a second mipsel guest, the checks mipsel.test.ts leaves out (lab-checks.ts says why).
 */
import { describeLabChecks, SEPARATE_GUEST_CHECKS } from './lab-checks.js';

describeLabChecks('mips');
describeLabChecks('mipsel', { instance: 'b', checks: (name) => SEPARATE_GUEST_CHECKS.includes(name) });
