/**
 * Secrets of the settings (remote trainer API keys, issue 13.4) kept out of the database, so a copy of
 * `loupe.db` (a backup, a bug report, a synced folder) carries no credential. They live in
 * `<data>/secrets.json` (0600): each value encrypted with Electron's `safeStorage` (the OS keychain:
 * macOS Keychain, Windows DPAPI, libsecret/kwallet on Linux) when the desktop app runs and it is
 * available, else as plain text in that private file — the same protection as `training.key`.
 * A value encrypted by the desktop app cannot be read by `loupe serve` (no keychain access there):
 * get() then returns null and the caller says the secret must be entered again in the app.
 */
import fs from 'node:fs';
import path from 'node:path';

export const SECRETS_FILE = 'secrets.json';

/** Electron's safeStorage, or anything with its shape. */
export interface Encrypter {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

type Entry = { plain: string } | { encrypted: string };

export interface SecretStore {
  get(name: string): string | null;
  set(name: string, value: string): void;
  delete(name: string): void;
  /** True when values are encrypted with the OS keychain (Electron safeStorage). */
  readonly encrypted: boolean;
}

export function openSecretStore(dataDir: string, encrypter?: Encrypter): SecretStore {
  const file = path.join(dataDir, SECRETS_FILE);
  const encrypted = !!encrypter?.isEncryptionAvailable();
  const read = (): Record<string, Entry> => {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Entry>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new Error(`${file} is not readable JSON (${(err as Error).message}); move it aside and enter the secrets again`, { cause: err });
    }
  };
  const write = (all: Record<string, Entry>) => {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  };
  return {
    encrypted,
    get(name) {
      const e = read()[name];
      if (!e) return null;
      if ('plain' in e) return e.plain;
      if (!encrypted) return null;
      try {
        return encrypter!.decryptString(Buffer.from(e.encrypted, 'base64'));
      } catch {
        return null;
      }
    },
    set(name, value) {
      const all = read();
      all[name] = encrypted ? { encrypted: encrypter!.encryptString(value).toString('base64') } : { plain: value };
      write(all);
    },
    delete(name) {
      const all = read();
      if (!(name in all)) return;
      delete all[name];
      write(all);
    },
  };
}
