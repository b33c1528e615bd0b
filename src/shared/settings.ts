/**
 * The app settings Loupe knows (`POST /app/settings`), each declared with what it sets and whether
 * changing it moves where data goes or where Loupe listens. Those settings need the key over HTTP
 * (the app's own window is trusted over IPC), like importing by path: without it any local account
 * could send every future span to a server of its choosing (issue 23.1). A new setting of that kind
 * declares `redirects` here; nothing else lists them.
 */

export interface SettingDef {
  /** What the setting sets, in words (errors, docs). */
  what: string;
  /** Changing it moves where data goes or where Loupe listens: over HTTP it needs the key. */
  redirects: boolean;
}

/** The port Settings saves; read by startLoupe when no --port / LOUPE_PORT was given. */
export const PORT_SETTING = 'server.port';
/**
 * The trace store Settings saves (a clickhouse:// URL), read by startLoupe and the CLI when neither
 * --store nor $LOUPE_STORE was given.
 */
export const STORE_SETTING = 'store.url';

const SETTINGS: ReadonlyMap<string, SettingDef> = new Map([
  [PORT_SETTING, { what: 'the port Loupe listens on at the next start', redirects: true }],
  [STORE_SETTING, { what: 'where spans are stored from the next start', redirects: true }],
]);

/**
 * Keys under this prefix are the page's own preferences (free-form strings that change nothing of
 * where data goes); every other key must be declared above.
 */
export const UI_SETTING_PREFIX = 'ui.';
const UI_KEY = /^ui\.[a-z0-9_.-]{1,61}$/;

/**
 * The declaration of a setting key, or null when Loupe does not know it. A Map, not an object
 * literal: `constructor`, `__proto__` and the like must not resolve to anything.
 */
export function settingDef(key: string): SettingDef | null {
  const known = SETTINGS.get(key);
  if (known) return known;
  return UI_KEY.test(key) ? { what: 'a preference of the page', redirects: false } : null;
}

/** The known keys, for an error that lists them. */
export const knownSettingKeys = (): string[] => [...SETTINGS.keys(), `${UI_SETTING_PREFIX}*`];

/** What of `keys` needs the key over HTTP, in words, or null when nothing does. */
export function redirectingChange(keys: string[]): string | null {
  const moving = keys.filter((k) => settingDef(k)?.redirects);
  if (!moving.length) return null;
  return `changing ${moving.map((k) => `${k} (${settingDef(k)!.what})`).join(' and ')}`;
}
