/** `loupe` spawned for real (bin/loupe.js under this Node), for tests of the command line and of crashes. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { repoRoot } from './paths.js';

export const loupeBin = path.join(repoRoot, 'bin/loupe.js');

export interface Served {
  line: string;
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** Spawns `loupe serve ARGS` and resolves with its first stdout line (event-driven, no sleeps). */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}, track?: ChildProcess[]): Promise<Served> {
  const child = spawn(process.execPath, [loupeBin, 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  track?.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (line) => resolve({ line, url: line.replace(/^listening on /, ''), child, stderr: () => stderr }));
    child.once('exit', (code) => reject(Object.assign(new Error(`loupe serve exited with ${code}: ${stderr}`), { code, stderr })));
  });
}

/** Resolves with the exit code (or signal) once the child has ended. */
export const exited = (child: ChildProcess): Promise<number | string | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode ?? child.signalCode)
    : new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal)));
