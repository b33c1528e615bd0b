import { seededRandom } from '../../shared/seeded-random.js';

/** Seeded helpers over the shared PRNG, so the demo data is the same on every machine and every run. */
export class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed >>> 0 || 0x9e3779b9);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  hex(bytes: number): string {
    let s = '';
    for (let i = 0; i < bytes; i++) s += this.int(0, 255).toString(16).padStart(2, '0');
    return s;
  }
}
