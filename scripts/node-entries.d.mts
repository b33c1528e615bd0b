/** Types of node-entries.mjs for the TypeScript configs that import it (electron.vite.config.ts). */
export function nodeEntries(root: string): Record<string, string>;
