/** Types of build-cli.mjs for the TypeScript that imports it (test/global-setup.ts). */
export const CLI_OUT: string;
export function buildCli(opts?: { quiet?: boolean }): Promise<void>;
export function ensureCliBuilt(opts?: { quiet?: boolean }): Promise<boolean>;
