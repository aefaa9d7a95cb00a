import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../base/logger.ts';
import { lazyRequestLogger } from './request-logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('lazyRequestLogger', () => {
  it('writes nothing below the level and binds the request id to what it writes', () => {
    const { lines, stream } = capture();
    const parent = createLogger('warn', stream);
    const log = lazyRequestLogger(parent, { reqId: 'req-1' }, {});
    log.info('not written');
    log.debug({ detail: 1 }, 'not written either');
    expect(lines).toEqual([]);
    log.warn({ apiKey: 'sk_secret' }, 'written');
    log.error('and this');
    expect(lines.map(({ reqId, msg, apiKey }) => ({ reqId, msg, apiKey }))).toEqual([
      { reqId: 'req-1', msg: 'written', apiKey: '[redacted]' },
      { reqId: 'req-1', msg: 'and this', apiKey: undefined },
    ]);
  });

  it('reports the level of the logger it stands for, and makes children with its bindings', () => {
    const { lines, stream } = capture();
    const parent = createLogger('info', stream);
    const log = lazyRequestLogger(parent, { reqId: 'req-2' }, {});
    expect(log.level).toBe('info');
    log.child({ step: 'verify' }).info('from a child');
    expect(lines).toMatchObject([{ reqId: 'req-2', step: 'verify', msg: 'from a child' }]);
    log.level = 'error';
    log.warn('now below its own level');
    expect(lines).toHaveLength(1);
    expect(parent.level).toBe('info');
  });

  it('gives a route with a level of its own a real child at once', () => {
    const { lines, stream } = capture();
    const parent = createLogger('info', stream);
    const log = lazyRequestLogger(parent, { reqId: 'req-3' }, { level: 'debug' });
    log.debug('route-level debug');
    expect(lines).toMatchObject([{ reqId: 'req-3', msg: 'route-level debug' }]);
  });
});
