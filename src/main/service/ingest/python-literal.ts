/**
 * Python literals as Python instrumentations write them when they `str()` a value instead of
 * serializing it: `{'result': 'Lisbon is sunny.\n'}`, `[{'role': 'user', 'content': 'hi'}]`, `None`.
 * Value carriers (OpenInference `output.value`, ...) hold such text; read as the value it spells, an
 * answer stored as a dict shows as its text instead of the dict with literal `\n`. Only literals:
 * dicts, lists, tuples, strings (single, double, triple quotes; escapes), numbers, True / False / None.
 * Anything else (a repr like `ModelResponse(...)`, an unbalanced quote) is not read (undefined).
 */

const MAX_DEPTH = 32;

class Reader {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new Error('too deep');
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.dict(depth);
    if (c === '[' || c === '(') return this.list(depth, c === '[' ? ']' : ')');
    if (c === "'" || c === '"') return this.str();
    const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|True|False|None)/.exec(this.s.slice(this.i));
    if (!m) throw new Error('not a literal');
    this.i += m[0].length;
    return m[0] === 'True' ? true : m[0] === 'False' ? false : m[0] === 'None' ? null : Number(m[0]);
  }

  dict(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') return this.i++, out;
      const k = this.value(depth + 1);
      this.ws();
      if (this.s[this.i++] !== ':') throw new Error('expected :');
      out[String(k)] = this.value(depth + 1);
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') throw new Error('expected , or }');
    }
  }

  list(depth: number, close: string): unknown[] {
    const out: unknown[] = [];
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === close) return this.i++, out;
      out.push(this.value(depth + 1));
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== close) throw new Error(`expected , or ${close}`);
    }
  }

  str(): string {
    const q = this.s[this.i]!;
    const triple = this.s.startsWith(q.repeat(3), this.i);
    const end = triple ? q.repeat(3) : q;
    this.i += end.length;
    let out = '';
    while (this.i < this.s.length) {
      if (this.s.startsWith(end, this.i)) return (this.i += end.length), out;
      const c = this.s[this.i++]!;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[this.i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        out += String.fromCodePoint(parseInt(this.s.slice(this.i, this.i + len), 16));
        this.i += len;
      } else if (e === '\n') continue;
      else out += `\\${e ?? ''}`;
    }
    throw new Error('unterminated string');
  }
}

/** The value a Python literal spells, or undefined when the text is not one. */
export function pythonLiteral(text: string): unknown {
  const r = new Reader(text);
  try {
    const v = r.value(0);
    r.ws();
    return r.i === text.length ? v : undefined;
  } catch {
    return undefined;
  }
}
