import { describe, expect, it } from 'vitest';
import { SseParser } from '../../../web-admin/src/api/sse-parser.js';

describe('the server-sent event parser', () => {
  it('parses events split anywhere, with CRLF or LF', () => {
    const text = 'event: progress\r\ndata: {"a":1}\r\n\r\n: keepalive\n\nevent: end\ndata: {"state":"completed"}\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      const parser = new SseParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'progress', data: '{"a":1}', id: null },
        { event: 'end', data: '{"state":"completed"}', id: null },
      ]);
    }
  });

  it('joins multi-line data, defaults the event name, keeps the last id', () => {
    const parser = new SseParser();
    expect(parser.push('id: 7\ndata: one\ndata:two\n\ndata\n\n')).toEqual([
      { event: 'message', data: 'one\ntwo', id: '7' },
      { event: 'message', data: '', id: '7' },
    ]);
  });

  it('emits nothing for a blank line without data', () => {
    expect(new SseParser().push('event: x\n\n\n')).toEqual([]);
  });
});
