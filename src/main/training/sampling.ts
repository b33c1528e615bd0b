/**
 * Token choice and text bookkeeping for generation: a seeded PRNG, log-softmax in float64, sampling
 * at a temperature with nucleus (top_p) truncation and an optional mask (constrained decoding), and
 * a per-choice tracker that applies stop strings and streams only text that can no longer turn out to
 * be part of a stop string — together with the logprob entries of exactly the tokens that text is
 * made of.
 */
import type { TokenLogprob } from './engine.js';

export { seededRandom } from '../../shared/seeded-random.js';

export function logSoftmax(logits: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]!);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i]! - max);
  const lse = max + Math.log(sum);
  const out = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i]! - lse;
  return out;
}

/**
 * temperature 0 → argmax; otherwise a draw from softmax(logp / temperature), restricted to the
 * smallest set of most likely tokens whose probability reaches topP. `allowed(i)` masks tokens out
 * (constrained decoding); at least one token must be allowed.
 */
export function pickToken(logp: Float64Array, temperature: number, rand: () => number, topP = 1, allowed?: (i: number) => boolean): number {
  const ok = allowed ?? (() => true);
  if (temperature <= 0) {
    let best = -1;
    for (let i = 0; i < logp.length; i++) if (ok(i) && (best < 0 || logp[i]! > logp[best]!)) best = i;
    if (best < 0) throw new Error('constrained decoding allowed no token');
    return best;
  }
  const ids: number[] = [];
  for (let i = 0; i < logp.length; i++) if (ok(i)) ids.push(i);
  if (ids.length === 0) throw new Error('constrained decoding allowed no token');
  const max = Math.max(...ids.map((i) => logp[i]! / temperature));
  let weights = ids.map((i) => Math.exp(logp[i]! / temperature - max));
  let pool = ids;
  if (topP < 1) {
    const total = weights.reduce((a, b) => a + b, 0);
    const order = pool.map((_, k) => k).sort((a, b) => weights[b]! - weights[a]!);
    const keep: number[] = [];
    let mass = 0;
    for (const k of order) {
      keep.push(k);
      mass += weights[k]! / total;
      if (mass >= topP) break;
    }
    pool = keep.map((k) => ids[k]!);
    weights = keep.map((k) => weights[k]!);
  }
  let r = rand() * weights.reduce((a, b) => a + b, 0);
  for (let k = 0; k < weights.length; k++) {
    r -= weights[k]!;
    if (r <= 0) return pool[k]!;
  }
  return pool[pool.length - 1]!;
}

export function topK(logp: Float64Array, k: number): number[] {
  return Array.from(logp.keys())
    .sort((a, b) => logp[b]! - logp[a]!)
    .slice(0, k);
}

/** A piece of a choice that may be streamed: text and the logprob entries of the tokens it is made of. */
export interface Piece {
  text: string;
  logprobs: TokenLogprob[];
}

/** Follows one choice's generated tokens: decoded text, stop strings, and what is safe to stream. */
export class TextTracker {
  private decoder = new TextDecoder();
  text = '';
  private sent = 0;
  private stopped = false;
  /** Every token entry so far and how many were streamed. */
  private tokens: TokenLogprob[] = [];
  private released = 0;
  private bytesIn = 0;
  private decodedBytes = 0;
  constructor(private stops: string[]) {}

  /**
   * Adds a token (byte, or null for a special token) with its entry; returns the piece that may be
   * streamed now and the stop cut if one matched. Tokens are released with the text once nothing is
   * held back (no stop-string prefix pending, no partial UTF-8 character).
   */
  push(byte: number | null, entry: TokenLogprob): { piece: Piece; stopAt: number | null } {
    this.tokens.push(entry);
    if (byte !== null) {
      const s = this.decoder.decode(Uint8Array.of(byte), { stream: true });
      this.text += s;
      this.bytesIn++;
      this.decodedBytes += Buffer.byteLength(s);
    }
    let stopAt: number | null = null;
    for (const s of this.stops) {
      const i = this.text.indexOf(s);
      if (s.length > 0 && i >= 0 && (stopAt === null || i < stopAt)) stopAt = i;
    }
    if (stopAt !== null) {
      const emit = this.text.slice(this.sent, Math.max(this.sent, stopAt));
      this.text = this.text.slice(0, stopAt);
      this.sent = this.text.length;
      this.stopped = true;
      // Tokens kept = the bytes of the kept text (byte tokens are bytes one-to-one).
      this.tokens.length = this.keptTokens();
      return { piece: { text: emit, logprobs: this.release(this.tokens.length) }, stopAt };
    }
    // Hold back the longest tail that is a prefix of some stop string: it may still become a stop.
    let hold = 0;
    for (const s of this.stops) {
      for (let n = Math.min(s.length - 1, this.text.length); n > hold; n--) {
        if (this.text.endsWith(s.slice(0, n))) {
          hold = n;
          break;
        }
      }
    }
    const safe = this.text.length - hold;
    const emit = safe > this.sent ? this.text.slice(this.sent, safe) : '';
    this.sent = Math.max(this.sent, safe);
    const caughtUp = hold === 0 && this.sent === this.text.length && this.decodedBytes >= this.bytesIn;
    return { piece: { text: emit, logprobs: caughtUp ? this.release(this.tokens.length) : [] }, stopAt: null };
  }

  /** Flushes held-back text and tokens at the end of generation. */
  finish(): Piece {
    if (!this.stopped) this.text += this.decoder.decode();
    const rest = this.stopped ? '' : this.text.slice(this.sent);
    this.sent = this.text.length;
    return { text: rest, logprobs: this.release(this.tokens.length) };
  }

  /** Every token entry the choice keeps (cut at a stop string). */
  get entries(): TokenLogprob[] {
    return this.tokens;
  }

  private release(upTo: number): TokenLogprob[] {
    const out = this.tokens.slice(this.released, upTo);
    this.released = Math.max(this.released, upTo);
    return out;
  }

  /** How many of the tokens make up the kept text: its bytes, counted over byte tokens. */
  private keptTokens(): number {
    let bytes = new TextEncoder().encode(this.text).length;
    let keep = 0;
    while (keep < this.tokens.length && bytes > 0) if (this.tokens[keep++]!.bytes !== null) bytes--;
    return keep;
  }
}
