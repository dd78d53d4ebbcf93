/**
 * Live progress on stderr: one line redrawn in place on a terminal, one line per update
 * otherwise (a log keeps every step), nothing with --json (stdout carries the documents).
 */
export class ProgressLine {
  private readonly show: boolean;
  private readonly tty: boolean;

  constructor(json: boolean, show = true) {
    this.show = show && !json;
    this.tty = this.show && process.stderr.isTTY === true;
  }

  update(line: string): void {
    if (!this.show) return;
    if (this.tty) process.stderr.write(`\r\x1b[2K${line}`);
    else console.error(line);
  }

  /** Ends the redrawn line so what follows starts on a new one. */
  done(): void {
    if (this.tty) process.stderr.write('\n');
  }
}
