/**
 * A JSON value recogniser driven by a JSON Schema, byte by byte (issue 22.13): the tool-call
 * constraint (json-constraint.ts) asks it which bytes may come next, so a constrained call's
 * arguments always validate against the function's `parameters`. One frame per open object, array,
 * string, number or literal; each object frame knows its properties, which keys it has written and
 * which required ones are missing, so `}` comes only once every required key is there and only
 * declared keys are written (a key outside `properties` is never generated — valid whatever
 * `additionalProperties` says). `minToFinish` is the fewest bytes that complete a valid value from
 * here (missing required members with their shortest values included), which the constraint uses to
 * close everything in time.
 *
 * Enforced: `type` (string, number, integer, boolean, null, array, object, or a list of them),
 * `properties`, `required`, `items`, `minItems`, `maxItems`, `enum`, `const`, `anyOf`/`oneOf` (the
 * first option a value's first byte fits), nested to MAX_DEPTH. Not enforced (any value of the
 * type): string lengths, patterns and formats, numeric ranges, `$ref`. A schema without a type is
 * any JSON value.
 */

export const MAX_DEPTH = 16;

const enc = (s: string): number[] => Array.from(new TextEncoder().encode(s));
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** Byte strings as a trie; `min` = fewest bytes to a complete one, `key` names the string ending here. */
interface Trie {
  next: Map<number, Trie>;
  end: boolean;
  key?: string;
  min: number;
  /** Strings ending at or below this node (declared keys: to skip branches whose keys are all written). */
  keys: string[];
}

function trieOf(entries: { bytes: number[]; key: string }[]): Trie {
  const root: Trie = { next: new Map(), end: false, min: 0, keys: [] };
  for (const { bytes, key } of entries) {
    let n = root;
    n.keys.push(key);
    for (const b of bytes) {
      let c = n.next.get(b);
      if (!c) n.next.set(b, (c = { next: new Map(), end: false, min: 0, keys: [] }));
      n = c;
      n.keys.push(key);
    }
    n.end = true;
    n.key = key;
  }
  const setMin = (n: Trie): number => {
    let m = n.end ? 0 : Infinity;
    for (const c of n.next.values()) m = Math.min(m, 1 + setMin(c));
    return (n.min = m);
  };
  setMin(root);
  return root;
}

export type Node =
  | { t: 'any' }
  | { t: 'string' }
  | { t: 'number'; integer: boolean }
  | { t: 'literal'; trie: Trie }
  | { t: 'array'; items: Node; minItems: number; maxItems: number }
  | { t: 'object'; props: Map<string, Node>; keyTrie: Trie; keyLen: Map<string, number>; required: string[]; free: Node | null }
  | { t: 'union'; options: Node[] };

const literal = (values: readonly unknown[]): Extract<Node, { t: 'literal' }> => ({ t: 'literal', trie: trieOf(values.map((v) => ({ bytes: enc(JSON.stringify(v)), key: JSON.stringify(v) }))) });
const ANY: Node = { t: 'any' };
const BOOLEAN = literal([true, false]);
const NULL = literal([null]);

type Schema = Record<string, unknown>;
const isSchema = (s: unknown): s is Schema => s !== null && typeof s === 'object' && !Array.isArray(s);

/** A JSON Schema (as a function's `parameters`) compiled for the recogniser. */
export function compileSchema(schema: unknown, depth = 0): Node {
  if (!isSchema(schema) || depth > MAX_DEPTH) return ANY;
  if ('const' in schema && schema.const !== undefined) return literal([schema.const]);
  if (Array.isArray(schema.enum) && schema.enum.length) return literal(schema.enum as unknown[]);
  const alts = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alts) && alts.length) return { t: 'union', options: alts.map((s) => compileSchema(s, depth + 1)) };
  const type = schema.type;
  if (Array.isArray(type)) return { t: 'union', options: type.map((t) => compileSchema({ ...schema, type: t }, depth)) };
  switch (type) {
    case 'string':
      return { t: 'string' };
    case 'number':
    case 'integer':
      return { t: 'number', integer: type === 'integer' };
    case 'boolean':
      return BOOLEAN;
    case 'null':
      return NULL;
    case 'array': {
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
      // A maximum below the minimum has no valid array: the minimum wins (never a dead end).
      const maxItems = typeof schema.maxItems === 'number' ? Math.max(schema.maxItems, minItems) : Infinity;
      return { t: 'array', items: compileSchema(schema.items, depth + 1), minItems, maxItems };
    }
    case 'object':
      return objectNode(schema, depth);
    default:
      return isSchema(schema.properties) ? objectNode(schema, depth) : ANY;
  }
}

function objectNode(schema: Schema, depth: number): Node {
  const declared = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? [...new Set(schema.required.filter((k): k is string => typeof k === 'string'))] : [];
  const names = [...new Set([...Object.keys(declared), ...required])];
  if (names.length === 0) {
    // No declared keys: any keys, values of `additionalProperties` (any when absent).
    const extra = schema.additionalProperties;
    return { t: 'object', props: new Map(), keyTrie: trieOf([]), keyLen: new Map(), required: [], free: isSchema(extra) ? compileSchema(extra, depth + 1) : ANY };
  }
  const props = new Map(names.map((k) => [k, compileSchema(declared[k], depth + 1)]));
  // A key as written inside its quotes (escaped), then the closing quote.
  const entries = names.map((k) => ({ bytes: [...enc(JSON.stringify(k).slice(1, -1)), QUOTE], key: k }));
  return { t: 'object', props, keyTrie: trieOf(entries), keyLen: new Map(entries.map((e) => [e.key, e.bytes.length + 1])), required, free: null };
}

/** The shortest valid value of a node, in bytes. */
export function minLen(n: Node): number {
  switch (n.t) {
    case 'any':
    case 'number':
      return 1;
    case 'string':
      return 2;
    case 'literal':
      return n.trie.min;
    case 'array':
      return 2 + (n.minItems ? n.minItems * minLen(n.items) + n.minItems - 1 : 0);
    case 'object': {
      const members = n.required.map((k) => member(n, k));
      return 2 + members.reduce((a, b) => a + b, 0) + Math.max(0, members.length - 1);
    }
    case 'union':
      return Math.min(...n.options.map(minLen));
  }
}

/** `"key":<shortest value>` of a declared key. */
const member = (n: Extract<Node, { t: 'object' }>, k: string): number => n.keyLen.get(k)! + 1 + minLen(n.props.get(k)!);

/**
 * At least the most one byte can add to `minToFinish`: it commits to at most one value kind, one
 * member or one more item, whose shortest form it then adds.
 */
export function maxJump(root: Node): number {
  let most = 0;
  const walk = (n: Node) => {
    most = Math.max(most, minLen(n));
    if (n.t === 'union') n.options.forEach(walk);
    else if (n.t === 'array') walk(n.items);
    else if (n.t === 'object') {
      for (const k of n.props.keys()) most = Math.max(most, 1 + member(n, k));
      n.props.forEach(walk);
      if (n.free) walk(n.free);
    }
  };
  walk(root);
  return most + 8;
}

type NumPart = 'sign' | 'zero' | 'int' | 'dot' | 'frac' | 'e' | 'esign' | 'exp';
type ObjNode = Extract<Node, { t: 'object' }>;
type ArrNode = Extract<Node, { t: 'array' }>;
type Frame =
  | { k: 'value'; node: Node }
  | { k: 'obj'; node: ObjNode; seen: string[]; st: 'first' | 'key' | 'inkey' | 'colon' | 'after'; cur: Node | null }
  | { k: 'arr'; node: ArrNode; count: number; st: 'first' | 'after' }
  | { k: 'key'; trie: Trie; obj: ObjNode; seen: string[] }
  /** `tail`: a free object's key, then its colon, shortest value and the closing brace (0 for a string value). */
  | { k: 'str'; esc: boolean; pending: number; tail: number }
  /** `digits`: of the current part (integer digits, exponent digits), bounded so the value stays a finite double. */
  | { k: 'num'; part: NumPart; integer: boolean; digits: number }
  | { k: 'lit'; trie: Trie };

const complete = (p: NumPart) => p === 'zero' || p === 'int' || p === 'frac' || p === 'exp';
/**
 * At most 15 integer digits and 2 exponent digits: every number written is a finite double (JSON
 * allows `1e999`, which parses to Infinity and reads back as `null`).
 */
const INT_DIGITS = 15;
const EXP_DIGITS = 2;
function numAllows(p: NumPart, integer: boolean, digits: number, b: number): boolean {
  const dotOrE = !integer && (b === 0x2e || b === 0x65 || b === 0x45);
  switch (p) {
    case 'zero':
      return dotOrE;
    case 'int':
      return (isDigit(b) && digits < INT_DIGITS) || dotOrE;
    case 'frac':
      return isDigit(b) || b === 0x65 || b === 0x45;
    case 'e':
      return isDigit(b) || b === 0x2b || b === 0x2d;
    case 'exp':
      return isDigit(b) && digits < EXP_DIGITS;
    default:
      return isDigit(b);
  }
}
function numNext(p: NumPart, b: number): NumPart {
  if (b === 0x2e) return 'dot';
  if (b === 0x65 || b === 0x45) return 'e';
  if (p === 'e' && (b === 0x2b || b === 0x2d)) return 'esign';
  if (p === 'sign') return b === 0x30 ? 'zero' : 'int';
  if (p === 'dot') return 'frac';
  if (p === 'e' || p === 'esign') return 'exp';
  return p;
}

/** The first byte each kind of value starts with; a union takes the first option that fits. */
function branch(n: Node, b: number, depth: number): Node | null {
  switch (n.t) {
    case 'any':
      if (b === LBRACE || b === LBRACKET) return depth < MAX_DEPTH ? n : null;
      return b === QUOTE || b === 0x2d || isDigit(b) || b === 0x74 || b === 0x66 || b === 0x6e ? n : null;
    case 'string':
      return b === QUOTE ? n : null;
    case 'number':
      return b === 0x2d || isDigit(b) ? n : null;
    case 'literal':
      return n.trie.next.has(b) ? n : null;
    case 'array':
      return b === LBRACKET && depth < MAX_DEPTH ? n : null;
    case 'object':
      return b === LBRACE && depth < MAX_DEPTH ? n : null;
    case 'union':
      for (const o of n.options) {
        const hit = branch(o, b, depth);
        if (hit) return hit;
      }
      return null;
  }
}

const ANY_OBJECT: ObjNode = { t: 'object', props: new Map(), keyTrie: trieOf([]), keyLen: new Map(), required: [], free: ANY };
const ANY_ARRAY: ArrNode = { t: 'array', items: ANY, minItems: 0, maxItems: Infinity };
const WORDS = literal([true, false, null]);

/** One JSON value of a schema, pushed byte by byte; `done` once it is complete. */
export class SchemaValue {
  private stack: Frame[];
  constructor(readonly root: Node) {
    this.stack = [{ k: 'value', node: root }];
  }

  get done(): boolean {
    return this.stack.length === 0;
  }

  clone(): SchemaValue {
    const c = Object.create(SchemaValue.prototype) as SchemaValue;
    Object.assign(c, { root: this.root, stack: this.stack.map((f) => ('seen' in f ? { ...f, seen: [...f.seen] } : { ...f })) });
    return c;
  }

  private depth(): number {
    return this.stack.filter((f) => f.k === 'obj' || f.k === 'arr').length;
  }

  allows(b: number): boolean {
    const f = this.stack.at(-1);
    if (!f) return false;
    switch (f.k) {
      case 'value':
        return branch(f.node, b, this.depth()) !== null;
      case 'obj': {
        const more = f.node.free !== null || f.node.keyTrie.keys.some((k) => !f.seen.includes(k));
        const closes = f.node.required.every((k) => f.seen.includes(k));
        if (f.st === 'first') return (b === QUOTE && more) || (b === RBRACE && closes);
        if (f.st === 'key') return b === QUOTE;
        if (f.st === 'colon') return b === COLON;
        return (b === COMMA && more) || (b === RBRACE && closes);
      }
      case 'arr': {
        const more = f.count < f.node.maxItems;
        const closes = f.count >= f.node.minItems;
        if (f.st === 'first') return (b === RBRACKET && closes) || (more && branch(f.node.items, b, this.depth()) !== null);
        return (b === COMMA && more) || (b === RBRACKET && closes);
      }
      case 'key': {
        const c = f.trie.next.get(b);
        return !!c && c.keys.some((k) => !f.seen.includes(k));
      }
      case 'str':
        if (f.pending) return f.esc ? isHex(b) : b >= 0x80 && b <= 0xbf;
        if (f.esc) return [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74, 0x75].includes(b);
        return b === QUOTE || b === BACKSLASH || (b >= 0x20 && b < 0x80) || (b >= 0xc2 && b <= 0xf4);
      case 'num':
        return numAllows(f.part, f.integer, f.digits, b) || (complete(f.part) && this.afterEnd(b));
      case 'lit':
        return f.trie.next.has(b) || (f.trie.end && this.afterEnd(b));
    }
  }

  /** Whether `b` may follow once the number or literal on top ends here. */
  private afterEnd(b: number): boolean {
    const c = this.clone();
    c.stack.pop();
    return c.stack.length > 0 && c.allows(b);
  }

  push(b: number): void {
    const f = this.stack.at(-1)!;
    switch (f.k) {
      case 'value':
        return this.start(branch(f.node, b, this.depth())!, b);
      case 'obj':
        if (f.st === 'colon') {
          f.st = 'after';
          this.stack.push({ k: 'value', node: f.cur! });
        } else if (b === COMMA) f.st = 'key';
        else if (b === RBRACE) this.stack.pop();
        else {
          f.st = 'inkey';
          const free = f.node.free;
          this.stack.push(free ? { k: 'str', esc: false, pending: 0, tail: 1 + minLen(free) + 1 } : { k: 'key', trie: f.node.keyTrie, obj: f.node, seen: f.seen });
        }
        return;
      case 'arr':
        if (b === RBRACKET) return void this.stack.pop();
        if (b === COMMA) {
          f.count++;
          this.stack.push({ k: 'value', node: f.node.items });
          return;
        }
        f.st = 'after';
        f.count++;
        this.stack.push({ k: 'value', node: f.node.items });
        return this.push(b);
      case 'key': {
        f.trie = f.trie.next.get(b)!;
        if (f.trie.end && f.trie.next.size === 0) {
          this.stack.pop();
          const obj = this.stack.at(-1) as Extract<Frame, { k: 'obj' }>;
          obj.seen.push(f.trie.key!);
          obj.cur = obj.node.props.get(f.trie.key!)!;
          obj.st = 'colon';
        }
        return;
      }
      case 'str':
        if (f.pending) {
          if (--f.pending === 0) f.esc = false; // the last hex digit of \uXXXX or UTF-8 continuation byte
        } else if (f.esc) {
          if (b === 0x75) f.pending = 4;
          else f.esc = false;
        } else if (b === BACKSLASH) f.esc = true;
        else if (b >= 0xc2) f.pending = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
        else if (b === QUOTE) {
          this.stack.pop();
          if (f.tail) {
            const obj = this.stack.at(-1) as Extract<Frame, { k: 'obj' }>;
            obj.cur = obj.node.free;
            obj.st = 'colon';
          }
        }
        return;
      case 'num':
        if (numAllows(f.part, f.integer, f.digits, b)) {
          const next = numNext(f.part, b);
          // Digits counted per part: the integer part (sign and zero included), then the exponent.
          f.digits = next === f.part || (f.part === 'sign' && next === 'int') || ((f.part === 'e' || f.part === 'esign') && next === 'exp') ? f.digits + 1 : 0;
          f.part = next;
        } else {
          this.stack.pop();
          this.push(b);
        }
        return;
      case 'lit': {
        const c = f.trie.next.get(b);
        if (!c) {
          this.stack.pop();
          return this.push(b);
        }
        f.trie = c;
        if (c.end && c.next.size === 0) this.stack.pop();
        return;
      }
    }
  }

  /** The value frame on top becomes the frame of the kind its first byte `b` starts. */
  private start(n: Node, b: number): void {
    this.stack.pop();
    if (b === LBRACE) this.stack.push({ k: 'obj', node: n.t === 'object' ? n : ANY_OBJECT, seen: [], st: 'first', cur: null });
    else if (b === LBRACKET) this.stack.push({ k: 'arr', node: n.t === 'array' ? n : ANY_ARRAY, count: 0, st: 'first' });
    else if (n.t === 'literal' || ((b === 0x74 || b === 0x66 || b === 0x6e) && n.t === 'any')) {
      this.stack.push({ k: 'lit', trie: (n.t === 'literal' ? n : WORDS).trie });
      this.push(b);
    } else if (b === QUOTE) this.stack.push({ k: 'str', esc: false, pending: 0, tail: 0 });
    else this.stack.push({ k: 'num', part: b === 0x2d ? 'sign' : b === 0x30 ? 'zero' : 'int', integer: n.t === 'number' && n.integer, digits: b === 0x2d ? 0 : 1 });
  }

  /** The fewest bytes that complete a valid value from here. */
  minToFinish(): number {
    let total = 0;
    for (const f of this.stack) total += frameCost(f);
    return total;
  }
}

/** Bytes the members still missing from an object need (each `,"k":v`), the closing brace included. */
function rest(n: ObjNode, seen: string[], first: boolean): number {
  const missing = n.required.filter((k) => !seen.includes(k));
  return missing.reduce((a, k) => a + member(n, k), 0) + missing.length - (first && missing.length ? 1 : 0) + 1;
}

function frameCost(f: Frame): number {
  switch (f.k) {
    case 'value':
      return minLen(f.node);
    case 'obj':
      if (f.st === 'inkey') return 0; // the key frame above counts the member and the rest
      if (f.st === 'colon') return 1 + minLen(f.cur!) + rest(f.node, f.seen, false);
      if (f.st === 'key') {
        const missing = f.node.required.filter((k) => !f.seen.includes(k));
        if (missing.length) return rest(f.node, f.seen, true);
        // After a comma a member must follow: the cheapest key left.
        if (f.node.free) return 2 + 1 + minLen(f.node.free) + 1;
        return Math.min(...[...f.node.props.keys()].filter((k) => !f.seen.includes(k)).map((k) => member(f.node, k))) + 1;
      }
      return rest(f.node, f.seen, f.st === 'first');
    case 'arr': {
      const left = Math.max(0, f.node.minItems - f.count);
      if (left === 0) return 1;
      return left * (minLen(f.node.items) + 1) - (f.st === 'first' ? 1 : 0) + 1;
    }
    case 'key': {
      // The cheapest key this prefix can still become, with its value and what the object then misses.
      let best = Infinity;
      const walk = (t: Trie, d: number) => {
        if (t.end && !f.seen.includes(t.key!)) {
          const others = rest(f.obj, [...f.seen, t.key!], false);
          best = Math.min(best, d + 1 + minLen(f.obj.props.get(t.key!)!) + others);
        }
        for (const c of t.next.values()) walk(c, d + 1);
      };
      walk(f.trie, 0);
      return best;
    }
    case 'str':
      return (f.esc && !f.pending ? 1 : 0) + f.pending + 1 + f.tail;
    case 'num':
      return complete(f.part) ? 0 : 1;
    case 'lit':
      return f.trie.min;
  }
}
