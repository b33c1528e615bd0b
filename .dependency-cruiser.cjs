/**
 * Import rules checked by `npm test` (scripts/check-imports.mjs): no cycles, type-only imports
 * included (a type cycle still ties two modules' designs together), and the store's port boundary.
 * https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules must not import each other, directly or through others (issue 8 item 7).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'store-behind-its-port',
      severity: 'error',
      comment: 'Services and transports reach storage through store/ports.ts (with store/failures.ts, which classifies the port\'s errors) and the factory store/index.ts only (issue 8 item 1).',
      from: { path: '^src/main/(service|transport|demo|training|mcp)/' },
      to: { path: '^src/main/store/', pathNot: '^src/main/store/(ports|failures|index)\\.ts$' },
    },
    {
      name: 'store-imports-no-service',
      severity: 'error',
      comment: 'Adapters share rules with services through domain/, never by importing service or transport code.',
      from: { path: '^src/main/store/' },
      to: { path: '^src/main/(service|transport)/' },
    },
    {
      name: 'adapters-apart',
      severity: 'error',
      comment: 'An adapter never imports another (its SQL, helpers or migrations): a rule both need lives in domain/ (issue 19 item 4).',
      from: { path: '^src/main/store/(sqlite|clickhouse)/' },
      to: { path: '^src/main/store/(sqlite|clickhouse)/', pathNot: '^src/main/store/$1/' },
    },
    {
      name: 'adapters-apart-migrations',
      severity: 'error',
      comment: 'The SQLite migrations (store/migrations/) are the SQLite adapter\'s own.',
      from: { path: '^src/main/store/clickhouse/' },
      to: { path: '^src/main/store/migrations/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.node.json' },
    exclude: { path: '^(node_modules|out|test|bench)/' },
  },
};
