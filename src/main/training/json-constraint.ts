/**
 * Constrained decoding of tool calls, byte by byte: the text must be one or more lines
 * `{"name":"<one of the names>","arguments":{...}}` (compact JSON, no whitespace — the form the chat
 * template writes tool calls in), then the end token. At every step `allowed()` says which byte
 * tokens (and whether the end token) may come next; the sampler masks everything else, so the result
 * always parses and names a real function. The arguments follow that function's JSON Schema
 * (`parameters`; json-schema-automaton.ts: required keys, types, enums, nested objects and arrays), so
 * they validate against it. With the token budget nearly spent, only bytes that still let the call
 * finish validly are allowed, so a call always completes when the budget can hold one.
 */
import { SchemaValue, compileSchema, maxJump, minLen, type Node } from './json-schema-automaton.js';

export { MAX_DEPTH } from './json-schema-automaton.js';
export const MAX_CALLS = 8;

const enc = (s: string): number[] => Array.from(new TextEncoder().encode(s));
const PREFIX = enc('{"name":"');
const MIDDLE = enc('","arguments":');
const QUOTE = 0x22;
const NEWLINE = 0x0a;

/** What may follow: a set of byte values and whether the end token is allowed. */
export interface Allowed {
  bytes: (b: number) => boolean;
  end: boolean;
}

interface TrieNode {
  next: Map<number, TrieNode>;
  /** The function whose name ends here. */
  name: string | null;
}

/** The arguments of a function: its `parameters` as an object (any object when it has none). */
function argumentsNode(parameters: unknown): Node {
  const n = compileSchema(parameters);
  return n.t === 'object' ? n : compileSchema({ type: 'object' });
}

function buildTrie(names: string[]): TrieNode {
  const root: TrieNode = { next: new Map(), name: null };
  for (const name of names) {
    let node = root;
    // The name as it appears inside a JSON string (escaped), so the line parses back to `name`.
    for (const b of enc(JSON.stringify(name).slice(1, -1))) {
      let child = node.next.get(b);
      if (!child) node.next.set(b, (child = { next: new Map(), name: null }));
      node = child;
    }
    node.name = name;
  }
  return root;
}

type Phase = 'prefix' | 'name' | 'middle' | 'args' | 'close' | 'after';

/** The tool-call grammar over byte tokens; one instance per sampled choice. */
export class ToolCallConstraint {
  private readonly trie: TrieNode;
  /** Each function's arguments, their shortest form, and the most one byte adds to the cost inside them. */
  private readonly fns: Map<string, { node: Node; min: number; jump: number }>;
  private phase: Phase = 'prefix';
  private forced: number[] = [...PREFIX];
  private node: TrieNode;
  private fn: string | null = null;
  private args: SchemaValue | null = null;
  private calls = 0;

  /** `parameters`: each function's JSON Schema by name (a name without one takes any object). */
  constructor(names: string[], parameters: Record<string, unknown> = {}) {
    if (names.length === 0) throw new Error('a tool constraint needs at least one function name');
    this.trie = buildTrie(names);
    this.node = this.trie;
    this.fns = new Map(
      names.map((n) => {
        const node = argumentsNode(parameters[n]);
        return [n, { node, min: minLen(node), jump: maxJump(node) }];
      }),
    );
  }

  clone(): ToolCallConstraint {
    const c = Object.assign(Object.create(ToolCallConstraint.prototype) as ToolCallConstraint, this);
    c.forced = [...this.forced];
    c.args = this.args?.clone() ?? null;
    return c;
  }

  /** From `node`: the fewest bytes that end a name below it, then `","arguments":`, its shortest arguments and `}`. */
  private nameCost(node: TrieNode): number {
    let best = node.name === null ? Infinity : 1 + MIDDLE.length - 1 + this.fns.get(node.name)!.min + 1;
    for (const child of node.next.values()) best = Math.min(best, 1 + this.nameCost(child));
    return best;
  }

  /** The fewest tokens that finish from here: the open call completed, then the end token. */
  cost(): number {
    switch (this.phase) {
      case 'prefix':
        return this.forced.length + this.nameCost(this.trie) + 1;
      case 'name':
        return this.nameCost(this.node) + 1;
      case 'middle':
        return this.forced.length + this.fns.get(this.fn!)!.min + 1 + 1;
      case 'args':
        return this.args!.minToFinish() + 2;
      case 'close':
        return this.forced.length + 1;
      case 'after':
        return 1;
    }
  }

  /**
   * What may come next, given how many tokens the choice may still produce (this one included). A
   * byte is allowed only if the call can still be finished within the budget after it, so when the
   * budget runs low only bytes that close what is open (or complete what the schema requires)
   * remain; near the end no new call starts.
   */
  allowed(remaining = Infinity): Allowed {
    const base = this.grammar();
    // Inside the arguments far from the limit, no single byte can make finishing impossible (a byte
    // adds at most `jump` to the cost there); elsewhere few bytes are candidates, so each is checked.
    if (this.phase === 'args' && remaining - 1 >= this.cost() + this.fns.get(this.fn!)!.jump) return base;
    return {
      bytes: (b) => {
        if (!base.bytes(b)) return false;
        const next = this.clone();
        next.push(b);
        return remaining - 1 >= next.cost();
      },
      end: base.end,
    };
  }

  /** The grammar alone (no budget). */
  private grammar(): Allowed {
    switch (this.phase) {
      case 'prefix':
      case 'middle':
      case 'close': {
        const want = this.forced[0];
        return { bytes: (b) => b === want, end: false };
      }
      case 'name':
        return { bytes: (b) => this.node.next.has(b) || (b === QUOTE && this.node.name !== null), end: false };
      case 'args':
        return { bytes: (b) => this.args!.allows(b), end: false };
      case 'after':
        return { bytes: (b) => b === NEWLINE && this.calls < MAX_CALLS, end: true };
    }
  }

  /** Advances by one byte token (the caller only passes allowed bytes). */
  push(b: number): void {
    switch (this.phase) {
      case 'prefix':
      case 'middle':
      case 'close':
        this.forced.shift();
        if (this.forced.length === 0) {
          if (this.phase === 'prefix') {
            this.phase = 'name';
            this.node = this.trie;
          } else if (this.phase === 'middle') {
            this.phase = 'args';
            this.args = new SchemaValue(this.fns.get(this.fn!)!.node);
          } else {
            this.phase = 'after';
            this.calls++;
          }
        }
        return;
      case 'name':
        if (b === QUOTE && this.node.name !== null && !this.node.next.has(b)) {
          this.phase = 'middle';
          this.fn = this.node.name;
          this.forced = MIDDLE.slice(1);
          return;
        }
        this.node = this.node.next.get(b)!;
        return;
      case 'args':
        this.args!.push(b);
        if (this.args!.done) {
          this.phase = 'close';
          this.forced = [0x7d];
        }
        return;
      case 'after':
        this.phase = 'prefix';
        this.forced = [...PREFIX];
        return;
    }
  }
}
