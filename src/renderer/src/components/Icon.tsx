/**
 * Icon — small inline SVG icons (emoji are not in every system font: headless Chromium on Debian
 * draws boxes for them). Props: name, size? (px, default 14), title?.
 */
const paths: Record<string, string> = {
  up: 'M2 7h3v7H2zM6 14h6.2a1.5 1.5 0 0 0 1.45-1.1l1.3-4.6A1.5 1.5 0 0 0 13.5 6.4H10l.6-3a1.4 1.4 0 0 0-2.6-1L6 6.2z',
  down: 'M2 2h3v7H2zM6 2h6.2a1.5 1.5 0 0 1 1.45 1.1l1.3 4.6A1.5 1.5 0 0 1 13.5 9.6H10l.6 3a1.4 1.4 0 0 1-2.6 1L6 9.8z',
  tool: 'M14.7 4.2l-2.3 2.3-2-.5-.5-2L12.2 1.7A4 4 0 0 0 7.4 6.9L1.6 12.7a1.4 1.4 0 0 0 2 2l5.8-5.8a4 4 0 0 0 5.3-4.7z',
  loupe: 'M6.5 1a5.5 5.5 0 0 1 4.4 8.8l3.9 3.9-1.4 1.4-3.9-3.9A5.5 5.5 0 1 1 6.5 1zm0 2a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7z',
  note: 'M2 2h12v9H6l-4 3z',
  agent: 'M8 1a3 3 0 1 1 0 6 3 3 0 0 1 0-6zM2 15c0-3.3 2.7-6 6-6s6 2.7 6 6z',
};

export function Icon(props: { name: keyof typeof paths  ; size?: number; title?: string }) {
  const s = props.size ?? 14;
  return (
    <svg width={s} height={s} viewBox="0 0 16 16" fill="currentColor" aria-hidden={props.title ? undefined : true} role={props.title ? 'img' : undefined} style={{ verticalAlign: '-2px', flex: 'none' }}>
      {props.title && <title>{props.title}</title>}
      <path d={paths[props.name] ?? paths.note} />
    </svg>
  );
}
