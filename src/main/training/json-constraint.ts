/**
 * Constrained decoding of tool calls, byte by byte: the text must be one or more lines
 * `{"name":"<one of the names>","arguments":{...}}` (compact JSON, no whitespace — the form the chat
 * template writes tool calls in), then the end token. At every step `allowed()` says which byte
 * tokens (and whether the end token) may come next; the sampler masks everything else, so the result
 * always parses and names a real function. The arguments object is recognised by a small pushdown
 * automaton for JSON (strings with escapes and UTF-8, numbers, literals, nested arrays and objects up
 * to MAX_DEPTH). With the token budget nearly spent, only bytes that close what is open are allowed,
 * so a call always completes when the budget can hold one.
 */

export const MAX_DEPTH = 16;
export const MAX_CALLS = 8;

const enc = (s: string): number[] => Array.from(new TextEncoder().encode(s));
const PREFIX = enc('{"name":"');
const MIDDLE = enc('","arguments":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** What may follow: a set of byte values and whether the end token is allowed. */
export interface Allowed {
  bytes: (b: number) => boolean;
  end: boolean;
}

interface TrieNode {
  next: Map<number, TrieNode>;
  terminal: boolean;
}

/** Bytes from `node` to the end of the shortest name below it (0 when one ends here). */
function shortestName(node: TrieNode): number {
  if (node.terminal) return 0;
  let best = Infinity;
  for (const child of node.next.values()) best = Math.min(best, 1 + shortestName(child));
  return best;
}

function buildTrie(names: string[]): TrieNode {
  const root: TrieNode = { next: new Map(), terminal: false };
  for (const name of names) {
    let node = root;
    // The name as it appears inside a JSON string (escaped), so the line parses back to `name`.
    for (const b of enc(JSON.stringify(name).slice(1, -1))) {
      let child = node.next.get(b);
      if (!child) node.next.set(b, (child = { next: new Map(), terminal: false }));
      node = child;
    }
    node.terminal = true;
  }
  return root;
}

type JsonState =
  | 'value' // a value must start
  | 'obj-first' // after `{`: a key or `}`
  | 'obj-key' // after `,` in an object: a key
  | 'colon' // after a key
  | 'arr-first' // after `[`: a value or `]`
  | 'after-value' // after a complete value inside a container: `,` or the closer
  | 'string'
  | 'escape'
  | 'unicode'
  | 'utf8' // inside a multi-byte UTF-8 character
  | 'literal'
  | 'number';

type NumPart = 'sign' | 'zero' | 'int' | 'dot' | 'frac' | 'e' | 'esign' | 'exp';

/** JSON value recogniser for the arguments object; `done` once the outer object closed. */
class JsonObject {
  private stack: ('obj' | 'arr')[] = [];
  private state: JsonState = 'value';
  private stringIsKey = false;
  private pending = 0; // hex digits left in \uXXXX, continuation bytes left in UTF-8
  private literal: number[] = [];
  private num: NumPart = 'int';
  private started = false;
  done = false;

  clone(): JsonObject {
    const c = Object.assign(Object.create(JsonObject.prototype) as JsonObject, this);
    c.stack = [...this.stack];
    c.literal = [...this.literal];
    return c;
  }

  /** The fewest bytes that complete the object from here (closing everything open). */
  minToFinish(): number {
    if (this.done) return 0;
    if (!this.started) return 2; // {}
    const closers = this.stack.length;
    const inString = this.stringIsKey ? 3 : 1; // `"` (+ `:0` for a key)
    switch (this.state) {
      case 'string':
        return inString + closers;
      case 'escape':
        return 1 + inString + closers;
      case 'unicode':
      case 'utf8':
        return this.pending + inString + closers;
      case 'number':
        return (this.numberComplete() ? 0 : 1) + closers;
      case 'literal':
        return this.literal.length + closers;
      case 'value':
        return 1 + closers;
      case 'obj-key':
        return 4 + closers; // "":0
      case 'colon':
        return 2 + closers;
      default:
        return closers;
    }
  }

  /** Allowed next bytes. */
  allows(b: number): boolean {
    if (this.done) return false;
    if (!this.started) return b === 0x7b; // the arguments are an object
    switch (this.state) {
      case 'value':
        return this.valueStart(b);
      case 'obj-first':
        return b === QUOTE || b === 0x7d;
      case 'obj-key':
        return b === QUOTE;
      case 'colon':
        return b === 0x3a;
      case 'arr-first':
        return b === 0x5d || this.valueStart(b);
      case 'after-value':
        return b === 0x2c || b === (this.stack.at(-1) === 'obj' ? 0x7d : 0x5d);
      case 'string':
        return b === QUOTE || b === BACKSLASH || (b >= 0x20 && b < 0x80) || (b >= 0xc2 && b <= 0xf4);
      case 'escape':
        return [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74, 0x75].includes(b);
      case 'unicode':
        return isHex(b);
      case 'utf8':
        return b >= 0x80 && b <= 0xbf;
      case 'literal':
        return b === this.literal[0];
      case 'number':
        return this.numberAllows(b) || (this.numberComplete() && this.closerAllows(b));
    }
  }

  private valueStart(b: number): boolean {
    const deep = this.stack.length >= MAX_DEPTH;
    return b === QUOTE || b === 0x2d || isDigit(b) || b === 0x74 || b === 0x66 || b === 0x6e || (!deep && (b === 0x7b || b === 0x5b));
  }

  private closerAllows(b: number): boolean {
    return b === 0x2c || b === (this.stack.at(-1) === 'obj' ? 0x7d : 0x5d);
  }

  private numberAllows(b: number): boolean {
    switch (this.num) {
      case 'sign':
        return isDigit(b);
      case 'zero':
        return b === 0x2e || b === 0x65 || b === 0x45;
      case 'int':
        return isDigit(b) || b === 0x2e || b === 0x65 || b === 0x45;
      case 'dot':
        return isDigit(b);
      case 'frac':
        return isDigit(b) || b === 0x65 || b === 0x45;
      case 'e':
        return isDigit(b) || b === 0x2b || b === 0x2d;
      case 'esign':
        return isDigit(b);
      case 'exp':
        return isDigit(b);
    }
  }

  private numberComplete(): boolean {
    return this.num === 'zero' || this.num === 'int' || this.num === 'frac' || this.num === 'exp';
  }

  /** After a complete value: back to the container, or done when the outer object closed. */
  private valueEnded(): void {
    this.state = 'after-value';
    if (this.stack.length === 0) this.done = true;
  }

  private open(kind: 'obj' | 'arr'): void {
    this.stack.push(kind);
    this.state = kind === 'obj' ? 'obj-first' : 'arr-first';
  }

  private close(): void {
    this.stack.pop();
    this.valueEnded();
  }

  private startValue(b: number): void {
    if (b === 0x7b) return this.open('obj');
    if (b === 0x5b) return this.open('arr');
    if (b === QUOTE) {
      this.stringIsKey = false;
      this.state = 'string';
      return;
    }
    if (b === 0x74 || b === 0x66 || b === 0x6e) {
      this.literal = enc(b === 0x74 ? 'true' : b === 0x66 ? 'false' : 'null').slice(1);
      this.state = 'literal';
      return;
    }
    this.state = 'number';
    this.num = b === 0x2d ? 'sign' : b === 0x30 ? 'zero' : 'int';
  }

  push(b: number): void {
    if (!this.started) {
      this.started = true;
      this.open('obj');
      return;
    }
    switch (this.state) {
      case 'value':
      case 'arr-first':
        if (b === 0x5d) return this.close();
        return this.startValue(b);
      case 'obj-first':
        if (b === 0x7d) return this.close();
      // falls through: a key starts
      case 'obj-key':
        this.stringIsKey = true;
        this.state = 'string';
        return;
      case 'colon':
        this.state = 'value';
        return;
      case 'after-value':
        if (b === 0x2c) this.state = this.stack.at(-1) === 'obj' ? 'obj-key' : 'value';
        else this.close();
        return;
      case 'string':
        if (b === QUOTE) {
          if (this.stringIsKey) this.state = 'colon';
          else this.valueEnded();
        } else if (b === BACKSLASH) this.state = 'escape';
        else if (b >= 0xc2) {
          this.pending = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
          this.state = 'utf8';
        }
        return;
      case 'escape':
        if (b === 0x75) {
          this.pending = 4;
          this.state = 'unicode';
        } else this.state = 'string';
        return;
      case 'unicode':
      case 'utf8':
        if (--this.pending === 0) this.state = 'string';
        return;
      case 'literal':
        this.literal.shift();
        if (this.literal.length === 0) this.valueEnded();
        return;
      case 'number':
        if (this.numberAllows(b)) {
          this.num =
            b === 0x2e ? 'dot' : b === 0x65 || b === 0x45 ? 'e' : b === 0x2b || b === 0x2d ? 'esign' : this.num === 'sign' ? (b === 0x30 ? 'zero' : 'int') : this.num === 'dot' ? 'frac' : this.num === 'e' || this.num === 'esign' ? 'exp' : this.num;
          return;
        }
        // The number ended with this closer or comma.
        this.state = 'after-value';
        this.push(b);
        return;
    }
  }
}

type Phase = 'prefix' | 'name' | 'middle' | 'args' | 'close' | 'after';

/** The tool-call grammar over byte tokens; one instance per sampled choice. */
export class ToolCallConstraint {
  private readonly trie: TrieNode;
  private phase: Phase = 'prefix';
  private forced: number[] = [...PREFIX];
  private node: TrieNode;
  private args = new JsonObject();
  private calls = 0;

  constructor(names: string[]) {
    if (names.length === 0) throw new Error('a tool constraint needs at least one function name');
    this.trie = buildTrie(names);
    this.node = this.trie;
  }

  clone(): ToolCallConstraint {
    const c = Object.assign(Object.create(ToolCallConstraint.prototype) as ToolCallConstraint, this);
    c.forced = [...this.forced];
    c.args = this.args.clone();
    return c;
  }

  /** The fewest tokens that finish from here: the open call completed, then the end token. */
  cost(): number {
    const tail = 2 + 1 + 1; // `{}` arguments, the closing `}`, the end token
    switch (this.phase) {
      case 'prefix':
        return this.forced.length + shortestName(this.trie) + 1 + MIDDLE.length - 1 + tail;
      case 'name':
        return shortestName(this.node) + 1 + MIDDLE.length - 1 + tail;
      case 'middle':
        return this.forced.length + tail;
      case 'args':
        return this.args.minToFinish() + 2;
      case 'close':
        return this.forced.length + 1;
      case 'after':
        return 1;
    }
  }

  /**
   * What may come next, given how many tokens the choice may still produce (this one included). A
   * byte is allowed only if the call can still be finished within the budget after it, so when the
   * budget runs low only bytes that close what is open remain; near the end no new call starts.
   */
  allowed(remaining = Infinity): Allowed {
    const base = this.grammar();
    // Inside the arguments far from the limit, no single byte can make finishing impossible (a byte
    // adds at most 4 to the cost there); elsewhere few bytes are candidates, so each is checked.
    if (this.phase === 'args' && remaining - 1 >= this.cost() + 6) return base;
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
        return { bytes: (b) => this.node.next.has(b) || (b === QUOTE && this.node.terminal), end: false };
      case 'args':
        return { bytes: (b) => this.args.allows(b), end: false };
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
            this.args = new JsonObject();
          } else {
            this.phase = 'after';
            this.calls++;
          }
        }
        return;
      case 'name':
        if (b === QUOTE && this.node.terminal && !this.node.next.has(b)) {
          this.phase = 'middle';
          this.forced = MIDDLE.slice(1);
          return;
        }
        this.node = this.node.next.get(b)!;
        return;
      case 'args':
        this.args.push(b);
        if (this.args.done) {
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
