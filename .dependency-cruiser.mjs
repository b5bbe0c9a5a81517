// The import rules of lib/ (docs/ARCHITECTURE.md), checked by `make lint` with dependency-cruiser.
// A unit is a folder of lib/ or a file at its root. Each may import only the units listed before it
// in `layers`, so no import points up, no two units import each other, and no units form a cycle.

/** The units from the ground up; a new folder of lib/ goes where what it imports is below it. */
export const layers = {
  // Ground: time, log, the product's numbers and words, text, the database, addresses, settings,
  // the machine, the limits' machinery, requests to other servers.
  ground: [
    'clock.ts',
    'log.ts',
    'product.ts',
    'messages.ts',
    'errors.ts',
    'text',
    'db',
    'ip',
    'config.ts',
    'host',
    'limits',
    'outgoing',
  ],
  // Domains: each owns its tables and rules; a domain imports only the ones before it.
  domains: [
    'media',
    'preview',
    'search',
    'modlog',
    'accounts',
    'follows',
    'notifications',
    'entries',
    'registration',
    'push',
    'atom',
    'moderation',
    'account-data',
    'stats',
    'federation',
    'services.ts',
  ],
  // Delivery: HTTP, the API's handlers, the drawn pages, the route table.
  delivery: ['openapi', 'http', 'api', 'pages', 'routes.ts', 'front-end-files.ts', 'api-docs.ts'],
  // The app: background jobs, metrics, the operator's commands, the composition root, the server's process.
  app: ['jobs', 'metrics', 'admin', 'app.ts', 'process'],
};

/** Front-end modules that draw nothing (words, dates) and that the ground and the domains may share. */
const sharedFrontEnd = ['web/static/modlog-words.js', 'web/static/format.js'];

const order = Object.values(layers).flat();
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What the server may run of the front end, and what the markup drawn on both sides (docs/ARCHITECTURE.md
 * "One renderer per page") may import: modules that neither draw into a page nor talk to the API.
 */
const drawnOnBothSides = [
  '^web/static/markup/',
  ...[
    'web/static/dom.js',
    'web/static/format.js',
    'web/static/limits.js',
    'web/static/next-path.js',
    'web/static/titles.js',
    'web/static/chart-geometry.js',
    'web/static/modlog-words.js',
  ].map((file) => `^${escaped(file)}$`),
];

/** The path expression of a unit: a root file, or everything in a folder. */
const unitPath = (unit) => (unit.endsWith('.ts') ? `^lib/${escaped(unit)}$` : `^lib/${escaped(unit)}/`);
const notBelow = [...layers.ground, ...layers.domains];

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other in a loop: one of them holds what both need.',
      from: { path: '^(lib|bin)/' },
      to: { circular: true },
    },
    ...order.slice(0, -1).map((unit, i) => ({
      name: `import-order:${unit}`,
      severity: 'error',
      comment: `lib/${unit} may import only the units before it in .dependency-cruiser.mjs: a lower unit that must tell a higher one offers a hook the higher one registers.`,
      from: { path: unitPath(unit) },
      to: { path: order.slice(i + 1).map(unitPath) },
    })),
    {
      name: 'lib-stands-alone',
      severity: 'error',
      comment: 'The server never imports the tests, the benchmarks or the command line.',
      from: { path: '^lib/' },
      to: { path: '^(test|bench|bin)/' },
    },
    {
      name: 'domains-draw-nothing',
      severity: 'error',
      comment: 'The ground and the domains share only the front-end modules that draw nothing (sharedFrontEnd).',
      from: { path: notBelow.map(unitPath) },
      to: { path: '^web/', pathNot: sharedFrontEnd.map((file) => `^${escaped(file)}$`) },
    },
    {
      name: 'drawn-on-both-sides',
      severity: 'error',
      comment:
        'The server, and web/static/markup/ which it runs, use only the front-end modules that run on both sides (drawnOnBothSides).',
      from: { path: ['^(lib|bin)/', '^web/static/markup/'] },
      to: { path: '^web/', pathNot: drawnOnBothSides },
    },
    {
      name: 'every-file-a-unit',
      severity: 'error',
      comment: 'A new folder or root file of lib/ gets its place in `layers` before it is imported.',
      from: { path: '^lib/' },
      to: { path: '^lib/', pathNot: order.map(unitPath) },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are imports too: they tie the units just the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js'] },
    exclude: { path: ['^node_modules/', '^\\.node/'] },
  },
};
