import { spawn } from 'node:child_process';
import type net from 'node:net';

/** The child's whole program: every handle it is sent goes straight back. */
const ECHO = "process.on('message', (m, h) => process.send(m, h));";

/**
 * `count` more listening servers for the socket `server` listens on, each with a descriptor of its
 * own. A listening socket passed to a child over IPC arrives as a duplicated descriptor (SCM_RIGHTS),
 * so sending it to a child that sends it straight back duplicates it: Node 20 has no SO_REUSEPORT.
 * Empty when no child can be started: the one listener still serves, only slower to accept.
 */
export async function duplicateListener(server: net.Server, count: number): Promise<net.Server[]> {
  if (count <= 0) return [];
  const child = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: {} });
  const copies: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      copies.push(
        await new Promise<net.Server>((resolve, reject) => {
          const gone = () => reject(new Error('the listener echo process exited'));
          child.once('exit', gone);
          child.once('error', reject);
          child.once('message', (_message, handle) => {
            child.off('exit', gone);
            child.off('error', reject);
            resolve(handle as net.Server);
          });
          child.send('listener', server);
        }),
      );
    }
    return copies;
  } catch {
    for (const copy of copies) copy.close();
    return [];
  } finally {
    child.kill();
  }
}
