/**
 * Reads a password for the CLI without it ever being an argument (argv is visible to every
 * user of the machine in `ps`) or echoed: from a file (--password-file), from standard input
 * when it is a pipe (`printf '%s' "$PW" | wrtfleet accounts create ...`), or typed at a prompt
 * with echo off, twice.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from './cli-context.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One line typed at the terminal, not echoed. */
function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    let typed = '';
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new UsageError('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readNewPassword(passwordFile: string | undefined): Promise<string> {
  if (passwordFile) return (await readFile(passwordFile, 'utf8')).replace(/\r?\n$/, '');
  if (!process.stdin.isTTY) return (await readStdin()).replace(/\r?\n$/, '');
  const first = await promptHidden('Password (at least 12 characters): ');
  const second = await promptHidden('Again: ');
  if (first !== second) throw new UsageError('the two passwords differ');
  return first;
}
