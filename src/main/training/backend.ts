/**
 * Picks the TF.js backend of the worker. WebAssembly (XNNPACK kernels, .wasm shipped inside the npm
 * package) measured 5–8× faster than the pure-JS CPU backend for this model on the target machine
 * (docs/trainer.md); tfjs-node would be faster still but downloads a native binary at install, which
 * is not possible here. LOUPE_TRAINER_BACKEND=cpu forces the pure-JS backend; if the wasm module
 * cannot load, the worker falls back to cpu and says why.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

export interface BackendInfo {
  backend: string;
  /** Why the preferred backend is not in use, when it is not. */
  note: string | null;
}

export async function initBackend(): Promise<BackendInfo> {
  const wanted = process.env.LOUPE_TRAINER_BACKEND ?? 'wasm';
  let note: string | null = null;
  if (wanted === 'wasm') {
    try {
      // Point the loader at the package's dist/ folder explicitly: inside the electron-vite bundle the
      // default (next to the calling script) would be out/main, where no .wasm file is.
      const pkg = createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm/package.json');
      setWasmPaths(path.join(path.dirname(pkg), 'dist') + path.sep);
      if (await tf.setBackend('wasm')) {
        await tf.ready();
        return { backend: 'wasm', note: null };
      }
      note = 'the wasm backend did not initialise';
    } catch (e) {
      note = `the wasm backend failed to load: ${(e as Error).message}`;
    }
  } else if (wanted !== 'cpu') {
    note = `LOUPE_TRAINER_BACKEND="${wanted}" is not one of wasm, cpu`;
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return { backend: 'cpu', note };
}
