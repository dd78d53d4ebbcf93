/**
 * The RouterHost of a simulated router: its captured file tree (agent/sim/fixture-host.ts)
 * for everything the agent reads, plus the two things a captured tree cannot hold, simulated:
 * the kernel's boot id, new after each simulated reboot (so the agent's reboot handling,
 * agent/apply/reboot.ts, runs as on a real router), and `reboot` itself, handed to the
 * simulated router.
 */
import { randomUUID } from 'node:crypto';
import type { CommandResult } from '../../core/host/router-host.js';
import { BOOT_ID_PATH } from '../apply/reboot.js';
import { FixtureHost } from './fixture-host.js';

export class SimulatedRouterHost extends FixtureHost {
  /** The simulated kernel's boot id. */
  private bootId = randomUUID();

  constructor(
    root: string,
    description: string,
    /** Runs `reboot` (the router goes away and comes back); absent, the command is not found. */
    private readonly onReboot?: () => void,
  ) {
    super(root, description);
  }

  /** The simulated kernel started again: a new boot id. */
  newBoot(): void {
    this.bootId = randomUUID();
  }

  override async run(argv: string[]): Promise<CommandResult> {
    if (argv.length === 1 && argv[0] === 'reboot' && this.onReboot) {
      this.onReboot();
      return { code: 0, stdout: '', stderr: '' };
    }
    return super.run(argv);
  }

  override async readFile(path: string): Promise<string | null> {
    if (path === BOOT_ID_PATH) return `${this.bootId}\n`;
    return super.readFile(path);
  }
}
