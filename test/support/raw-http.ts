import net from 'node:net';

/** The first response on a connection: its status, its head (status line and headers) and body. */
export interface RawAnswer {
  status: number;
  head: string;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequestOptions {
  /** Sent after the head, while the answer is awaited (a body the server may never read). */
  body?: Buffer;
  /** A HEAD request: the answer ends with its head, whatever Content-Length says. */
  headOnly?: boolean;
  /** No complete answer by then fails the request; a hang fails fast instead of stalling a test. */
  deadlineMs?: number;
}

function parseHead(head: string) {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers };
}

/**
 * One HTTP/1.1 request written on a fresh socket, `head` verbatim. Resolves as soon as the
 * first response's head has arrived, and its body when it declares a Content-Length: an event
 * stream's 200 resolves at its headers, and an answer sent while the upload is still under way
 * resolves without waiting for it. The socket is destroyed once the answer is in.
 */
export function rawRequest(port: number, head: string, options: RawRequestOptions = {}): Promise<RawAnswer> {
  const { body, headOnly = false, deadlineMs = 2000 } = options;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new Error(
              `no complete answer within ${deadlineMs} ms; got ${JSON.stringify(data.toString().slice(0, 300))}`,
            ),
          ),
        ),
      deadlineMs,
    );
    const answer = (): RawAnswer | null => {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const headText = data.subarray(0, end).toString('latin1');
      const { status, headers } = parseHead(headText);
      const rest = data.subarray(end + 4);
      const length = headers['content-length'];
      if (!headOnly && length !== undefined && rest.length < Number(length)) return null;
      return { status, head: headText, headers, body: headOnly ? '' : rest.toString() };
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const got = answer();
      if (got) finish(() => resolve(got));
    });
    // A server that answers and closes while the upload goes on resets it; the answer came first.
    socket.on('error', () => {});
    socket.on('close', () => {
      const got = answer();
      finish(() => (got ? resolve(got) : reject(new Error(`closed without an answer; got ${data.length} bytes`))));
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}
