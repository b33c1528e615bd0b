// Runs once before all test files. Kept tiny: suites that need a built renderer build it in
// their own beforeAll via test/helpers/build.ts so unit runs stay fast.
export default function setup(): void {
  process.env.LOUPE_TEST = '1';
}
