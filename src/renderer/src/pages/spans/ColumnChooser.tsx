/**
 * Column chooser of the spans list: show/hide any span-row field, move shown columns left/right, and
 * add custom attribute columns (typed map + key) — those are requested from the server through
 * custom_attr_columns, since a span row only carries the custom keys it was asked for.
 */
import { useState } from 'react';
import { label } from './columns';
import type { CustomColumn } from './spansStore';

const SOURCES: CustomColumn['source'][] = ['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'];

export interface ColumnChooserProps {
  all: string[];
  visible: string[];
  setVisible(ids: string[]): void;
  custom: CustomColumn[];
  addCustom(c: CustomColumn): void;
  removeCustom(c: CustomColumn): void;
}

export function ColumnChooser(p: ColumnChooserProps) {
  const [source, setSource] = useState<CustomColumn['source']>('custom_attrs_string');
  const [key, setKey] = useState('');
  const move = (id: string, by: number) => {
    const i = p.visible.indexOf(id);
    const j = i + by;
    if (i < 0 || j < 0 || j >= p.visible.length) return;
    const next = [...p.visible];
    [next[i], next[j]] = [next[j]!, next[i]!];
    p.setVisible(next);
  };
  const hidden = p.all.filter((id) => !p.visible.includes(id));
  return (
    <details className="column-chooser" data-testid="column-chooser">
      <summary>Columns ({p.visible.length})</summary>
      <div className="chooser-body">
        <div>
          <div className="section-label">Shown</div>
          <ul>
            {p.visible.map((id) => (
              <li key={id}>
                <label><input type="checkbox" checked onChange={() => p.setVisible(p.visible.filter((x) => x !== id))} /> {label(id)}</label>
                <button title="Move left" onClick={() => move(id, -1)}>↑</button>
                <button title="Move right" onClick={() => move(id, 1)}>↓</button>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <div className="section-label">Hidden</div>
          <ul className="chooser-hidden">
            {hidden.map((id) => (
              <li key={id}>
                <label><input type="checkbox" checked={false} onChange={() => p.setVisible([...p.visible, id])} /> {label(id)}</label>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <div className="section-label">Custom attribute column</div>
          <form
            className="custom-col-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (!key.trim()) return;
              p.addCustom({ source, key: key.trim() });
              setKey('');
            }}
          >
            <select value={source} onChange={(e) => setSource(e.target.value as CustomColumn['source'])} aria-label="Attribute type">
              {SOURCES.map((s) => <option key={s} value={s}>{s.replace('custom_attrs_', '')}</option>)}
            </select>
            <input value={key} onChange={(e) => setKey(e.target.value)} placeholder="attribute key" aria-label="Attribute key" data-testid="custom-col-key" />
            <button type="submit">Add</button>
          </form>
          <ul>
            {p.custom.map((c) => (
              <li key={`${c.source}.${c.key}`}>
                <span className="mono">{c.key}</span> <span className="faint">{c.source.replace('custom_attrs_', '')}</span>
                <button title="Remove column" onClick={() => p.removeCustom(c)}>×</button>
              </li>
            ))}
          </ul>
        </div>
      </div>
    </details>
  );
}
