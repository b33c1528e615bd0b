/**
 * Loss (and any other numeric series) per gradient step, drawn with uPlot: a small, well-kept canvas
 * chart library that redraws thousands of points cheaply, which matters while events stream in live.
 * Props: `steps` (x values), `series` {label → y values aligned with steps}, `height`.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useLatest } from '../../hooks/latest';

const COLORS = ['#3b82f6', '#f97316', '#10b981', '#a855f7'];

export interface LossChartProps {
  steps: number[];
  series: Record<string, (number | null)[]>;
  height?: number;
}

export function LossChart({ steps, series, height = 220 }: LossChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const labels = Object.keys(series);
  const shape = JSON.stringify(labels);
  const data = useLatest({ steps, series });

  // Recreate the chart only when the set of series changes; new points just call setData.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const labels = JSON.parse(shape) as string[];
    const { steps, series } = data.current;
    const axisColor = getComputedStyle(el).color || '#888';
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 200),
      height,
      legend: { show: true },
      scales: { x: { time: false } },
      axes: [
        // Steps are whole numbers: no 1.2, 1.4 … ticks.
        { stroke: axisColor, grid: { stroke: 'rgba(128,128,128,0.15)' }, label: 'step', values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) },
        { stroke: axisColor, grid: { stroke: 'rgba(128,128,128,0.15)' } },
      ],
      series: [{ label: 'step' }, ...labels.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length], width: 2, points: { show: steps.length < 40 } }))],
    };
    const p = new uPlot(opts, [steps, ...labels.map((l) => series[l] ?? [])] as uPlot.AlignedData, el);
    plot.current = p;
    const resize = new ResizeObserver(() => p.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      p.destroy();
      plot.current = null;
    };
  }, [shape, height, data]);

  useEffect(() => {
    plot.current?.setData([steps, ...labels.map((l) => series[l] ?? [])] as uPlot.AlignedData);
  });

  return <div ref={box} className="loss-chart" data-testid="loss-chart" data-points={steps.length} />;
}
