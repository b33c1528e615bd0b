/** `loupe serve` in a child process for the bench (a server in the bench's process would stall the timers measuring it). */
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Starts `loupe serve --data-dir D --port 0 [args]` from the sources (with `env` over this process's); resolves once it listens. */
export async function serve(dataDir: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const tsx = path.resolve(here, '../../node_modules/.bin/tsx');
  const child = spawn(tsx, [path.resolve(here, '../../src/main/cli.ts'), 'serve', '--data-dir', dataDir, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`loupe serve exited (${code}) before listening`)));
  });
  return { url, stop: async () => void (child.kill('SIGTERM'), await exited) };
}
