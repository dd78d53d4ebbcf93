/**
 * Server-sent events as the controller writes them ("event: progress\ndata: {...}\n\n"),
 * parsed from text chunks that may split anywhere. Pure, so it is unit-tested on its own.
 */

export interface ServerEvent {
  event: string;
  data: string;
  id: string | null;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): ServerEvent[] {
    this.buffer += chunk;
    const done: ServerEvent[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      // A CR that ends the chunk may be the first half of a CRLF: wait for the next chunk.
      if (newline === this.buffer.length - 1 && this.buffer.endsWith('\r')) break;
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.buffer = this.buffer.slice(newline + width);
      const event = this.line(line);
      if (event) done.push(event);
    }
    return done;
  }

  private line(line: string): ServerEvent | null {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return null;
      }
      const event = { event: this.event || 'message', data: this.data.join('\n'), id: this.id };
      this.event = '';
      this.data = [];
      return event;
    }
    if (line.startsWith(':')) return null; // a comment: the keepalive
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id') this.id = value;
    return null;
  }
}
