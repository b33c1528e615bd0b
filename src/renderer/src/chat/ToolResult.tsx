/**
 * ToolResult — a tool's result, shown whole once its line is opened (issue 22.11: no second fold).
 * An MCP result (`{content: [{type: 'text', text}, …], isError?, structuredContent?}`) shows its text
 * parts as text (a part whose text is JSON as JSON, open); any other JSON value is drawn with every
 * level open, unless it is too big to read unfolded, where the first levels are open.
 * Props: value (the recorded tool_result: a JSON string, an object, or plain text).
 */
import { JsonView, parseMaybeJson } from '../components/JsonView';

/** Above this many characters of JSON a result opens two levels deep instead of all of them. */
const OPEN_ALL_MAX_CHARS = 20_000;
const ALL_LEVELS = 64;

interface McpText { type: 'text'; text: string }

/** The text parts of an MCP tool result, or null when the value is not one. */
export function mcpTextParts(data: unknown): { texts: string[]; rest: Record<string, unknown> } | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const content = (data as { content?: unknown }).content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const isText = (p: unknown): p is McpText =>
    p !== null && typeof p === 'object' && (p as McpText).type === 'text' && typeof (p as McpText).text === 'string';
  if (!content.every(isText)) return null;
  const rest = Object.fromEntries(Object.entries(data).filter(([k, v]) => k !== 'content' && !(k === 'isError' && v === false)));
  return { texts: content.map((p) => p.text), rest };
}

function levelsFor(data: object): number {
  return JSON.stringify(data).length <= OPEN_ALL_MAX_CHARS ? ALL_LEVELS : 2;
}

export function ToolResult({ value }: { value: unknown }) {
  const parsed = parseMaybeJson(value);
  if (!parsed.json) return <pre className="json" aria-label="tool result">{parsed.text}</pre>;
  const mcp = mcpTextParts(parsed.data);
  if (!mcp) return <JsonView value={parsed.data} expandLevel={levelsFor(parsed.data)} label="tool result" />;
  return (
    <div className="tool-result mcp" aria-label="tool result" data-testid="tool-result-mcp">
      {mcp.texts.map((t, i) => {
        const inner = parseMaybeJson(t);
        return inner.json
          ? <JsonView key={i} value={inner.data} expandLevel={levelsFor(inner.data)} label="tool result text" />
          : <pre key={i} className="json">{t}</pre>;
      })}
      {Object.keys(mcp.rest).length > 0 && <JsonView value={mcp.rest} expandLevel={levelsFor(mcp.rest)} label="tool result fields" />}
    </div>
  );
}
