/**
 * The alias a group-by key gets when the request names none (semantics §7: "alias defaults to the
 * column name and must match [A-Za-z_][A-Za-z0-9_]*"). A field name already matches; a custom
 * attribute key is usually dotted (`app.customer_tier`), so it becomes `app_customer_tier`: every
 * character outside [A-Za-z0-9_] turns into `_`, and a leading digit gets a `_` prefix. An alias the
 * request does give is still checked as written. Shared by the server and the UI so both agree on
 * the `group_keys` names.
 */
export const ALIAS_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function defaultGroupAlias(key: string): string {
  if (ALIAS_PATTERN.test(key)) return key;
  const safe = key.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(safe) ? safe : `_${safe}`;
}
