/**
 * JsonView — folded, syntax-highlighted JSON (react-json-view-lite, themed through CSS variables).
 * Props:
 *  - value: any JSON value, or a string that may hold JSON (tool arguments/results arrive as text);
 *    a string that does not parse is shown as preformatted text.
 *  - expandLevel?: levels open initially (default 1: the top object open, nested ones folded).
 *  - label?: aria label.
 */
import { JsonView as Lite, defaultStyles } from 'react-json-view-lite';

type StyleProps = typeof defaultStyles;

const style: StyleProps = {
  container: 'json',
  basicChildStyle: 'j-basic',
  label: 'j-key',
  clickableLabel: 'j-label-click',
  nullValue: 'j-null',
  undefinedValue: 'j-null',
  numberValue: 'j-num',
  stringValue: 'j-str',
  booleanValue: 'j-bool',
  otherValue: 'j-str',
  punctuation: 'j-punct',
  expandIcon: 'j-expand',
  collapseIcon: 'j-collapse',
  collapsedContent: 'j-collapsed',
  childFieldsContainer: 'j-children',
  noQuotesForStringValues: false,
  quotesForFieldNames: true,
  ariaLables: { collapseJson: 'collapse JSON', expandJson: 'expand JSON' },
  stringifyStringValues: false,
};

export function parseMaybeJson(value: unknown): { json: true; data: object } | { json: false; text: string } {
  if (value !== null && typeof value === 'object') return { json: true, data: value };
  if (typeof value === 'string') {
    const t = value.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        const data: unknown = JSON.parse(t);
        if (data !== null && typeof data === 'object') return { json: true, data };
      } catch {
        /* not JSON: shown as text */
      }
    }
    return { json: false, text: value };
  }
  return { json: false, text: value === undefined ? '' : JSON.stringify(value) };
}

export function JsonView(props: { value: unknown; expandLevel?: number; label?: string }) {
  const parsed = parseMaybeJson(props.value);
  if (!parsed.json) return <pre className="json" aria-label={props.label}>{parsed.text}</pre>;
  const level = props.expandLevel ?? 1;
  return <Lite data={parsed.data} style={style} shouldExpandNode={(l) => l < level} clickToExpandNode aria-label={props.label} />;
}
