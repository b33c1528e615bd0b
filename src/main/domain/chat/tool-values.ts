/**
 * A tool span's stored arguments and result as a reader expects them (issue 10). The store keeps
 * what the emitter wrote; the chat view reads through the wrappers some emitters put around them:
 * - LangChain tool callbacks (OpenInference, OpenLLMetry, Langfuse handlers) record the result as
 *   a serialized ToolMessage (`{lc: 1, id: [..., 'ToolMessage'], kwargs: {content, tool_call_id,
 *   name}}`, sometimes under `{output: ...}`; Langfuse's Python handler its pydantic dump `{type: 'tool',
 *   content, tool_call_id, name, ...}`): the result is its content, and it names the call id
 *   and the tool (OpenLLMetry names the span after the tool's class, `DynamicStructuredTool`);
 * - Strands / Bedrock content blocks (`[{text}]`, `[{json}]`, `{json: {$value}}`): their text / value;
 * - a string result serialized as JSON (Koog: `"rainy, 57°F"`): the string;
 * - arguments recorded as the tool's single input string (`A-1187`) or OpenLLMetry's `{args: [...]}`
 *   wrapper are replaced by the model's own call (same call id, else the next call of that tool).
 */
import type { MessagePart } from '../span.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(text: string | null): unknown {
  if (text === null) return null;
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const jsonText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * LangChain message serialized by `toJSON()`, with its class name; or dumped as a pydantic model (Python
 * `model_dump()`: its fields, `type: 'tool'` for a ToolMessage), as Langfuse's Python serializer writes it
 * (langfuse-python langfuse/_utils/serializer.py: a BaseModel is dumped before LangChain's own to_json).
 */
function langChainMessage(v: unknown): { cls: string; kwargs: Obj } | null {
  if (isObj(v) && v.type === 'tool' && typeof v.tool_call_id === 'string' && 'content' in v) return { cls: 'ToolMessage', kwargs: v };
  if (!isObj(v) || v.lc === undefined || !Array.isArray(v.id) || !isObj(v.kwargs)) return null;
  return { cls: String(v.id[v.id.length - 1] ?? ''), kwargs: v.kwargs };
}

/** Strands / Bedrock blocks: every element `{text}` or `{json}` (one key). */
function blocks(v: unknown): string | null {
  if (!Array.isArray(v) || !v.length) return null;
  const out: string[] = [];
  for (const b of v) {
    if (!isObj(b) || Object.keys(b).length !== 1) return null;
    if (typeof b.text === 'string') out.push(b.text);
    else if (b.json !== undefined) {
      const j = isObj(b.json) && Object.keys(b.json).length === 1 && '$value' in b.json ? b.json.$value : b.json;
      out.push(jsonText(j));
    } else return null;
  }
  return out.join('\n');
}

export interface ToolResult {
  text: string | null;
  /** Call id and tool name the result names (LangChain ToolMessage), when it does. */
  callId: string | null;
  name: string | null;
}

export function readToolResult(raw: string | null): ToolResult {
  // A string result serialized as JSON (Koog writes JsonElement.toString(): `"rainy, 57°F"`) is that string.
  if (raw !== null && raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    try {
      const s: unknown = JSON.parse(raw);
      if (typeof s === 'string') raw = s;
    } catch {
      // not JSON: kept as recorded
    }
  }
  const none: ToolResult = { text: raw, callId: null, name: null };
  const v = parse(raw);
  if (typeof v === 'string' || v === null) return none;
  const inner = isObj(v) && Object.keys(v).length === 1 && v.output !== undefined ? v.output : v;
  const lc = langChainMessage(inner);
  if (lc && /ToolMessage/.test(lc.cls)) {
    const c = lc.kwargs.content;
    return {
      text: typeof c === 'string' ? c : blocks(c) ?? jsonText(c ?? null),
      callId: typeof lc.kwargs.tool_call_id === 'string' ? lc.kwargs.tool_call_id : null,
      name: typeof lc.kwargs.name === 'string' ? lc.kwargs.name : null,
    };
  }
  const b = blocks(v);
  return b === null ? none : { ...none, text: b };
}

/** Arguments that say what the call was given: a JSON object other than OpenLLMetry's `{args: [...]}` wrapper. */
export function argumentsAreOwn(raw: string | null): boolean {
  const v = parse(raw);
  return isObj(v) && !(Object.keys(v).length === 1 && Array.isArray(v.args));
}

/** Tool names that are a LangChain class, not the tool (OpenLLMetry names tool spans so). */
export const CLASS_NAMES = new Set(['DynamicStructuredTool', 'DynamicTool', 'StructuredTool', 'Tool']);

/** Tool calls the models of a turn made: by call id, and per tool name in order (for spans without ids). */
export class ModelCalls {
  private readonly byId = new Map<string, MessagePart>();
  private readonly byName = new Map<string, MessagePart[]>();

  add(p: MessagePart, fromOutput: boolean): void {
    if (p.type !== 'tool_call') return;
    if (typeof p.id === 'string' && p.id && !this.byId.has(p.id)) this.byId.set(p.id, p);
    if (fromOutput && typeof p.name === 'string' && p.name) {
      const list = this.byName.get(p.name) ?? [];
      list.push(p);
      this.byName.set(p.name, list);
    }
  }

  /** The model's call for a tool span: same call id, else the next unclaimed call of that tool. */
  claim(id: string | null, name: string | null): MessagePart | null {
    const list = name ? this.byName.get(name) : undefined;
    const hit = (id && this.byId.get(id)) || (list?.length ? list[0]! : null);
    if (hit && list) {
      const i = list.indexOf(hit);
      if (i >= 0) list.splice(i, 1);
    }
    return hit ?? null;
  }
}
