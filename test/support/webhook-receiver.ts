import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers to its n-th request (0-based): a status, or never ('hang'). */
export type Answer = (request: ReceivedRequest, n: number) => number | 'hang';

/**
 * A real HTTP receiver on 127.0.0.1 for the senders' tests: it keeps every request it got (body
 * as sent, headers) and answers as the test scripts it.
 */
export async function startReceiver(answer: Answer = () => 200, options: { delayMs?: number } = {}) {
  const received: ReceivedRequest[] = [];
  const hanging: ServerResponse[] = [];
  let script = answer;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const n = received.push(request) - 1;
      const status = script(request, n);
      if (status === 'hang') return void hanging.push(res);
      const reply = () =>
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `answer ${status}`);
      if (options.delayMs) setTimeout(reply, options.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer(next: Answer) {
      script = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
