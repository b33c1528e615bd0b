/**
 * Where Loupe keeps its data: `--data-dir` wins, then `LOUPE_DATA_DIR`, then the platform's
 * app-data folder (the same folder Electron's app.getPath('userData') would pick for "Loupe", so the
 * desktop app and `loupe serve` share one store by default).
 */
import os from 'node:os';
import path from 'node:path';

export interface DataDirSources {
  flag?: string | null;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

export function resolveDataDir(src: DataDirSources = {}): string {
  const env = src.env ?? process.env;
  if (src.flag) return path.resolve(src.flag);
  if (env.LOUPE_DATA_DIR) return path.resolve(env.LOUPE_DATA_DIR);
  return defaultDataDir(src.platform ?? process.platform, env, src.home ?? os.homedir());
}

export function defaultDataDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
  switch (platform) {
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Loupe');
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Loupe');
    default:
      return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Loupe');
  }
}
