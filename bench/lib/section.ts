export interface BenchContext {
  /** Shared scratch directory (generated files, the big store). */
  workDir: string;
  /** Prints one figure, optionally with the target it is measured against. */
  print(name: string, value: string | number, target?: string): void;
}

export interface BenchSection {
  title: string;
  run(ctx: BenchContext): Promise<void>;
}
