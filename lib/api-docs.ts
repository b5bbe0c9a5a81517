import { readFileSync, writeFileSync } from 'node:fs';
import { apiDocsFile, withApiReference } from './api/api-reference.ts';
import { buildOpenApiDocument } from './api/openapi-document.ts';
import { routes } from './routes.ts';

/**
 * `make api-docs`: writes docs/API.md's endpoint reference anew from the OpenAPI document of the
 * route table (lib/api/api-reference.ts), leaving the hand-written rest of the file as it is.
 * The origin only fills the document's `servers`, which the reference does not show.
 */
const document = buildOpenApiDocument(routes, 'https://board.example.org');
writeFileSync(apiDocsFile, withApiReference(readFileSync(apiDocsFile, 'utf8'), document));
