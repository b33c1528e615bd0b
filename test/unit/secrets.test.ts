/** settings/secrets.ts: secrets kept out of the database, in a 0600 file, encrypted when an OS keychain is there. */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRETS_FILE, openSecretStore, type Encrypter } from '../../src/main/settings/secrets.js';

/** AES-256-GCM under a key held in memory: what safeStorage does with the keychain's key. */
function keychain(): Encrypter {
  const key = randomBytes(32);
  return {
    isEncryptionAvailable: () => true,
    encryptString(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    decryptString(buf) {
      const d = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
      d.setAuthTag(buf.subarray(12, 28));
      return Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-secrets-'));

describe('secret store', () => {
  it('without a keychain: a 0600 file beside the database, set / get / delete', () => {
    const d = dir();
    const s = openSecretStore(d);
    expect(s.encrypted).toBe(false);
    expect(s.get('trainer.backend.b.api_key')).toBeNull();
    s.set('trainer.backend.b.api_key', 'sk-remote-123');
    expect(s.get('trainer.backend.b.api_key')).toBe('sk-remote-123');
    expect(fs.statSync(path.join(d, SECRETS_FILE)).mode & 0o777).toBe(0o600);
    s.delete('trainer.backend.b.api_key');
    expect(openSecretStore(d).get('trainer.backend.b.api_key')).toBeNull();
  });

  it('with a keychain: the file holds no plain text, and a process without the keychain reads nothing', () => {
    const d = dir();
    const chain = keychain();
    const s = openSecretStore(d, chain);
    expect(s.encrypted).toBe(true);
    s.set('k', 'sk-very-secret');
    expect(fs.readFileSync(path.join(d, SECRETS_FILE), 'utf8')).not.toContain('sk-very-secret');
    expect(openSecretStore(d, chain).get('k')).toBe('sk-very-secret');
    expect(openSecretStore(d).get('k')).toBeNull(); // loupe serve: no keychain access
    expect(openSecretStore(d, keychain()).get('k')).toBeNull(); // another keychain key
  });

  it('a broken file is named, not silently emptied', () => {
    const d = dir();
    fs.writeFileSync(path.join(d, SECRETS_FILE), '{oops');
    expect(() => openSecretStore(d).get('k')).toThrow(/secrets.json is not readable JSON/);
  });
});
