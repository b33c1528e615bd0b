/**
 * KeyboardHelp — the `?` overlay listing every key binding (hooks/keys KEYMAP).
 * Props: open, onClose. The shell owns the open state and binds `?`; Esc and a click outside close it.
 */
import { KEYMAP, useEscape } from '../hooks/keys';

export function KeyboardHelp(props: { open: boolean; onClose(): void }) {
  useEscape(props.onClose, props.open);
  if (!props.open) return null;
  return (
    <div className="overlay" onClick={props.onClose}>
      <div className="dialog" role="dialog" aria-label="Keyboard shortcuts" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        <table className="keys-table">
          <tbody>
            {KEYMAP.map(([k, what]) => (
              <tr key={k}>
                <td>{k.split(' / ').map((part, i) => <span key={part}>{i > 0 && ' / '}<kbd>{part}</kbd></span>)}</td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
