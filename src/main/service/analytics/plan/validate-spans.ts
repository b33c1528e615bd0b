/**
 * Request rules of the spans query that the schema cannot see, checked in the order semantics §7
 * lists them so a request breaking several rules always gets the same first error.
 */
import { invalid } from '../../../../shared/errors.js';
import type { OpParsedInput } from '../../../../shared/contract/index.js';
import { SpanRow, GroupRow } from '../../../../shared/contract/analytics.js';
import { ALIAS_PATTERN as ALIAS, defaultGroupAlias } from '../../../../shared/group-alias.js';

export type SpansInput = OpParsedInput<'spans.query'>;

export const MAX_DISTRIBUTIONS = 20;
const CUSTOM = ['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'];
const ROW_FIELDS = new Set([...Object.keys(SpanRow.shape), ...Object.keys(GroupRow.shape)]);

export function validateSpansQuery(q: SpansInput): void {
  const grouped = (q.group_by?.length ?? 0) > 0;
  if (!grouped) {
    for (const k of ['measures', 'group_filters', 'group_distributions'] as const) {
      if (q[k]?.length) throw invalid(k, `${k} need a non-empty group_by`, q[k]);
    }
  }
  if (q.group_distributions?.length && q.group_by?.length !== 1) {
    throw invalid('group_distributions', `group_distributions need exactly one group_by, got ${q.group_by?.length ?? 0}`);
  }
  if (grouped && q.custom_attr_columns?.length) throw invalid('custom_attr_columns', 'custom_attr_columns cannot be combined with group_by');
  if (grouped && q.include_details) throw invalid('include_details', 'include_details cannot be combined with group_by', true);
  q.custom_attr_columns?.forEach((c, i) => {
    if (c.source !== undefined && !CUSTOM.includes(c.source)) {
      throw invalid(['custom_attr_columns', i, 'source'], `source must be one of ${CUSTOM.join(', ')}`, c.source);
    }
  });
  const measureAliases = new Set<string>();
  q.measures?.forEach((m, i) => {
    if (measureAliases.has(m.alias)) throw invalid(['measures', i, 'alias'], `duplicate measure alias '${m.alias}'`, m.alias);
    measureAliases.add(m.alias);
  });
  const groupAliases = new Set<string>();
  q.group_by?.forEach((g, i) => {
    const alias = g.alias ?? defaultGroupAlias(g.key);
    if (!ALIAS.test(alias)) throw invalid(['group_by', i, 'alias'], 'alias must match [A-Za-z_][A-Za-z0-9_]*', alias);
    if (groupAliases.has(alias)) throw invalid(['group_by', i, 'alias'], `duplicate group alias '${alias}'`, alias);
    groupAliases.add(alias);
  });
  q.measures?.forEach((m, i) => {
    if (!ALIAS.test(m.alias)) throw invalid(['measures', i, 'alias'], 'alias must match [A-Za-z_][A-Za-z0-9_]*', m.alias);
    if (ROW_FIELDS.has(m.alias) || groupAliases.has(m.alias)) {
      throw invalid(['measures', i, 'alias'], `measure alias '${m.alias}' collides with a ${groupAliases.has(m.alias) ? 'group alias' : 'row field'}`, m.alias);
    }
  });
  const distAliases = new Set<string>();
  q.group_distributions?.forEach((d, i) => {
    if (distAliases.has(d.alias)) throw invalid(['group_distributions', i, 'alias'], `duplicate distribution alias '${d.alias}'`, d.alias);
    distAliases.add(d.alias);
  });
  if ((q.group_distributions?.length ?? 0) > MAX_DISTRIBUTIONS) {
    const n = q.group_distributions!.length;
    throw invalid('group_distributions', `List should have at most ${MAX_DISTRIBUTIONS} items after validation, not ${n}`, undefined, 'too_long');
  }
}
