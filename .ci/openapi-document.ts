import { buildOpenApiDocument } from '../lib/api/openapi-document.ts';
import { routes } from '../lib/routes.ts';

/**
 * Writes /api/openapi.json as the board builds it (for deploy/board.env's example origin: Redocly warns of localhost) to stdout, for
 * `make openapi-lint` (Redocly, redocly.yaml) to read: the same document the board serves.
 */
process.stdout.write(JSON.stringify(buildOpenApiDocument(routes, 'https://board.example.org'), null, 2));
