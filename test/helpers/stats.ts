/** Small statistics for tests that measure an effect instead of a tuned threshold. */

/** P(X ≥ k) for X ~ Binomial(n, p). */
export function binomialTail(n: number, k: number, p: number): number {
  let total = 0;
  for (let i = k; i <= n; i++) total += Math.exp(lnChoose(n, i) + i * Math.log(p) + (n - i) * Math.log(1 - p));
  return total;
}

function lnChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}
