/**
 * Tool calls as people read them: `lookup_order(order_id="A-1187")`. Pure functions (unit-tested).
 *
 * Emitters record a model's tool-call request as message parts, and the chat view's assistant text
 * then holds that request as JSON (`{"id":"call_…","name":"lookup_order","arguments":{…}}`) right
 * before the tool span that ran it. `parseToolRequests` recognises such a text (every shape we have
 * seen: our normalized parts, OTel GenAI `tool_call` parts, OpenAI `function` calls, Anthropic
 * `tool_use` blocks; one object, an array, or several joined by blank lines) so the chat can draw
 * each call once.
 */

export interface ToolRequest {
  id: string | null;
  name: string;
  /** Parsed arguments when they were JSON, else the raw text. */
  args: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function maybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

/** One request object → ToolRequest, or null when the object is not a tool-call request. */
function asRequest(o: unknown): ToolRequest | null {
  if (!isObj(o)) return null;
  const fn = isObj(o.function) ? o.function : null;
  const name = typeof o.name === 'string' ? o.name : typeof fn?.name === 'string' ? fn.name : null;
  if (!name) return null;
  const type = typeof o.type === 'string' ? o.type : null;
  const argKey = ['arguments', 'args', 'input', 'parameters'].find((k) => k in o);
  const hasArgs = argKey !== undefined || (fn !== null && 'arguments' in fn);
  // A bare {name} is too common in other JSON to be taken for a call unless it says it is one.
  if (!hasArgs && !(type && /tool|function/.test(type))) return null;
  const rawArgs = argKey !== undefined ? o[argKey] : fn?.arguments;
  const id = typeof o.id === 'string' ? o.id : typeof o.tool_call_id === 'string' ? o.tool_call_id : null;
  return { id, name, args: maybeJson(rawArgs ?? {}) };
}

/** The tool-call requests a message text consists of, or null when the text says anything else. */
export function parseToolRequests(text: string | null | undefined): ToolRequest[] | null {
  const t = text?.trim();
  if (!t || !(t.startsWith('{') || t.startsWith('['))) return null;
  const chunks = t.split(/\n\s*\n/);
  const out: ToolRequest[] = [];
  for (const chunk of chunks) {
    let v: unknown;
    try {
      v = JSON.parse(chunk);
    } catch {
      return null;
    }
    const list = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.tool_calls) ? v.tool_calls : [v];
    if (list.length === 0) return null;
    for (const item of list) {
      const r = asRequest(item);
      if (!r) return null;
      out.push(r);
    }
  }
  return out;
}

/** A value as written in a call line: strings quoted, short structures inline, long ones elided. */
function argValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}…` : v);
  if (v === null || typeof v !== 'object') return String(v);
  const s = JSON.stringify(v);
  return s.length > 40 ? (Array.isArray(v) ? `[…${v.length}]` : '{…}') : s;
}

/**
 * `name(key="value", n=3)` from arguments (a JSON object, JSON text, or other text). Non-object
 * arguments appear as one positional value; no arguments give `name()`.
 */
export function callSignature(name: string, args: unknown): string {
  const v = maybeJson(args);
  if (v === null || v === undefined || v === '') return `${name}()`;
  if (isObj(v)) return `${name}(${Object.entries(v).map(([k, x]) => `${k}=${argValue(x)}`).join(', ')})`;
  return `${name}(${argValue(v)})`;
}
