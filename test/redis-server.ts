import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './process.ts';

export interface RedisServer {
  readonly url: string;
  /** SIGKILL: Redis gone at once, as a crashed or unplugged one is. */
  kill(): Promise<void>;
  /** A new, empty redis-server on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server of the test's own on a free loopback port, keeping nothing on disk. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start:\n${output}`)),
        10_000,
      );
      started.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  };
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () => end('SIGKILL'),
    restart: launch,
    stop: () => end('SIGTERM'),
  };
}
