import { spawn } from 'node:child_process';
import type net from 'node:net';

/** The child's whole program: every handle it is sent goes straight back. */
const ECHO = "process.on('message', (m, h) => process.send(m, h));";

/**
 * `count` more descriptors for the socket `server` listens on, as listening servers made by
 * `create`. A handle passed to a child over IPC arrives as a duplicated descriptor (SCM_RIGHTS),
 * so one sent to a child that sends it straight back is a copy: Node 20 has no SO_REUSEPORT. The
 * raw handle (`server._handle`) travels, not the server: a server would be made to listen, and
 * accept, in the child, and again here with Node's default backlog. Empty when no child starts:
 * the one listener still serves.
 */
export async function duplicateListener(
  server: net.Server,
  count: number,
  backlog: number,
  create: () => net.Server,
): Promise<net.Server[]> {
  const handle = (server as unknown as { _handle?: object })._handle;
  if (count <= 0 || !handle) return [];
  const child = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: {} });
  const copies: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const copy = await new Promise<object>((resolve, reject) => {
        const gone = () => reject(new Error('the listener echo process exited'));
        child.once('exit', gone);
        child.once('error', reject);
        child.once('message', (_message, received) => {
          child.off('exit', gone);
          child.off('error', reject);
          resolve(received as object);
        });
        child.send('listener', handle as net.Socket);
      });
      const listener = create();
      await new Promise<void>((resolve) => listener.listen(copy, backlog, resolve));
      copies.push(listener);
    }
  } catch {
    // The copies made so far serve as well as all of them would.
  } finally {
    child.kill();
  }
  return copies;
}
