export interface BenchContext {
  /** Shared scratch directory (generated files, the big store). */
  workDir: string;
  /** Prints one figure, optionally with the target it is measured against. */
  print(name: string, value: string | number, target?: string): void;
}

export interface BenchSection {
  title: string;
  /** Runs only when named on the command line (`npm run bench -- scale`), never in a plain `npm run bench`. */
  explicitOnly?: boolean;
  run(ctx: BenchContext): Promise<void>;
}
