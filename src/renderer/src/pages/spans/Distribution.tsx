/**
 * One group's distribution (semantics §7 group_distributions): numeric values as a small histogram of
 * equal-width bins, strings/bools as a bar list of the top values plus "other". Drawn as plain SVG/CSS
 * rather than with a chart library: a few dozen rects per cell in a table of groups, where a canvas
 * chart per cell would cost far more than it draws. The histogram takes the cell's width (the column
 * keeps a readable minimum, GroupTable). Props: `dist` (the server's distribution object), `integer`
 * (the attribute holds whole numbers: one bar per value or whole-number ranges, distModel.integerBins).
 */
import { integerBins, normalizeDistribution, type NormalDist } from './distModel';

/** Drawing units of the histogram's viewBox; the SVG is stretched to the cell's width. */
const W = 200;
const H = 34;

function Histogram({ d: raw, integer }: { d: Extract<NormalDist, { kind: 'numeric' }>; integer: boolean }) {
  const d = integer ? { ...raw, bins: integerBins(raw) } : raw;
  if (d.present === 0) {
    return (
      <figure className="dist dist-numeric" data-testid="dist-histogram" data-counts="">
        <figcaption>no values · <span data-testid="dist-present">0</span> of {d.missing}</figcaption>
      </figure>
    );
  }
  const max = Math.max(1, ...d.bins.map((b) => b.count));
  const bw = W / Math.max(1, d.bins.length);
  return (
    <figure
      className="dist dist-numeric"
      data-testid="dist-histogram"
      data-counts={d.bins.map((b) => b.count).join(',')}
      data-bins={d.bins.map((b) => (b.lo === b.hi ? fmt(b.lo) : `${fmt(b.lo)}–${fmt(b.hi)}`)).join(',')}
    >
      <svg width="100%" height={H} viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={`histogram of ${d.present} values`}>
        {d.bins.map((b, i) => {
          const h = (b.count / max) * (H - 2);
          return (
            <rect key={i} x={i * bw + 0.5} y={H - h} width={Math.max(1, bw - 1)} height={h} className="dist-bar">
              <title>{`${b.lo === b.hi ? fmt(b.lo) : `${fmt(b.lo)} – ${fmt(b.hi)}`}: ${b.count}`}</title>
            </rect>
          );
        })}
      </svg>
      {integer && d.bins.length <= 12 && (
        <div className="dist-ticks" aria-hidden>
          {d.bins.map((b, i) => <span key={i}>{b.lo === b.hi ? fmt(b.lo) : `${fmt(b.lo)}–${fmt(b.hi)}`}</span>)}
        </div>
      )}
      <figcaption title={`${d.present} spans have a value${d.missing ? `, ${d.missing} have none` : ''}`}>
        {fmt(d.min)} – {fmt(d.max)} · <span data-testid="dist-present">{d.present}</span> values
        {d.missing ? `, ${d.missing} without` : ''}
      </figcaption>
    </figure>
  );
}

function BarList({ d }: { d: Extract<NormalDist, { kind: 'categorical' }> }) {
  const total = Math.max(1, ...d.values.map((v) => v.count), d.other);
  return (
    <ul className="dist dist-bars" data-testid="dist-barlist" data-other={d.other}>
      {d.values.map((v) => (
        <li key={v.value} title={`${v.value}: ${v.count}`} data-testid="dist-value">
          <span className="dist-bar-fill" style={{ width: `${(v.count / total) * 100}%` }} />
          <span className="dist-label">{v.value}</span>
          <span className="dist-count" data-testid="dist-count">{v.count}</span>
        </li>
      ))}
      {d.other > 0 && (
        <li className="dist-other">
          <span className="dist-bar-fill" style={{ width: `${(d.other / total) * 100}%` }} />
          <span className="dist-label">other</span>
          <span className="dist-count">{d.other}</span>
        </li>
      )}
    </ul>
  );
}

export function DistributionCell({ dist, integer = false }: { dist: unknown; integer?: boolean }) {
  const d = normalizeDistribution(dist);
  if (!d) return <span className="muted">—</span>;
  if (d.kind === 'numeric') return <Histogram d={d} integer={integer} />;
  return <BarList d={d} />;
}

function fmt(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '—';
  return Math.abs(n) >= 1000 || Number.isInteger(n) ? n.toLocaleString('en-US') : String(Number(n.toPrecision(3)));
}
