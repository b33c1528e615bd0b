/**
 * The sign test of a paired change (docs/replay.md "Did it get better?"): of the pairs whose score
 * moved, `up` went up and `down` went down; under "no effect" each moved pair goes either way with
 * probability 1/2. z = (up − down) / √(up + down) is the normal approximation; p is the exact
 * two-sided binomial tail, so a handful of pairs is not over-read.
 */
export function signTest(up: number, down: number): { z: number | null; p: number | null } {
  const n = up + down;
  if (n === 0) return { z: null, p: null };
  const k = Math.max(up, down);
  // P(X >= k) for X ~ Binomial(n, 1/2), summed in log space (n may be thousands).
  const logC = lnChoose(n);
  let tail = 0;
  for (let i = k; i <= n; i++) tail += Math.exp(logC(i) - n * Math.LN2);
  return { z: (up - down) / Math.sqrt(n), p: Math.min(1, 2 * tail) };
}

/** ln C(n, i) for one n, from a running sum of logarithms. */
function lnChoose(n: number): (i: number) => number {
  const lnFact = [0];
  for (let i = 1; i <= n; i++) lnFact.push(lnFact[i - 1]! + Math.log(i));
  return (i) => lnFact[n]! - lnFact[i]! - lnFact[n - i]!;
}
