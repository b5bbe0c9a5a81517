import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createRouter } from '../../lib/http/router.ts';
import { buildOpenApiDocument, openApiPath, routeKey } from '../../lib/api/openapi-document.ts';
import { routes } from '../../lib/routes.ts';
import type { Answer } from './client.ts';

/**
 * Real answers checked against the OpenAPI document (GET /api/openapi.json, lib/openapi/), so the
 * document and the code cannot drift: the status must be documented for the route, the
 * Content-Type must be one the document names, the JSON body must match the schema of that
 * status, and a header the document requires must be there. assertError calls it for every error
 * answer of a Client; the API tests call it on their main success answers.
 */

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

interface DocumentedResponse {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: unknown }>;
}

let document: OpenApiDocument | undefined;
/** The document as the board serves it (its `servers` entry aside), built on first use. */
export function openApiDocument(): OpenApiDocument {
  return (document ??= buildOpenApiDocument(routes, 'http://localhost'));
}
const router = createRouter(routes);
const require = createRequire(import.meta.url);
let ajv: Ajv2020 | undefined;

/** The validator, made on first use (most test files never need it loaded). */
function validator(): Ajv2020 {
  if (ajv) return ajv;
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (instance: Ajv2020) => Ajv2020;
  // Strict: an unknown keyword or a `required` without its property in a schema of the document is an error too.
  ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  // The document's own members are not schema keywords; the schemas inside are found by JSON pointer.
  ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components']);
  ajv.addSchema(openApiDocument(), 'openapi.json');
  return ajv;
}

/** A JSON pointer's segment. */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The compiled schema at a place of the document, e.g. ('components', 'schemas', 'Entry'); strict mode, so a typo in a keyword fails here. */
export function openApiSchemaAt(...segments: string[]): ValidateFunction {
  const validate = validator().getSchema(`openapi.json#/${segments.map(pointer).join('/')}`);
  assert.ok(validate, `no schema at ${segments.join(' → ')}`);
  return validate;
}

/** The answer's media type without parameters ('application/json'), '' when none. */
function mediaTypeOf(answer: Answer): string {
  return (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

const covers = (documented: string, actual: string) =>
  documented === '*/*' ||
  documented === actual ||
  (documented.endsWith('/*') && actual.startsWith(documented.slice(0, -1)));

/** Asserts that a Client's answer is what the OpenAPI document says its route answers with that status. */
export function assertDocumented(answer: Answer): void {
  assert.ok(answer.request, 'assertDocumented needs an answer of the test Client (it knows what was asked)');
  const { method, path } = answer.request;
  const pathname = new URL(path, 'http://board.invalid').pathname;
  const match = router.match(method, pathname);
  const context = `${method} ${path} → ${answer.status} ${answer.text.slice(0, 300)}`;
  if (match.kind !== 'found') return assertUnrouted(answer, pathname, context);

  const key = routeKey(match.route);
  const documentPath = openApiPath(match.route.path);
  const operationMethod = match.route.method.toLowerCase();
  const operation = (
    openApiDocument().paths[documentPath] as
      | Record<string, { responses: Record<string, DocumentedResponse> }>
      | undefined
  )?.[operationMethod];
  assert.ok(
    operation,
    `${key} is not in the OpenAPI document: give its handler its operation (handler.doc, lib/api/ or lib/pages/) (${context})`,
  );
  const documented = operation.responses[answer.status];
  assert.ok(
    documented,
    `${key} answered ${answer.status}, which its OpenAPI operation does not document (handler.doc beside its handler): ${context}`,
  );
  // OPENAPI_COVERAGE=<file>: one line per checked answer, to see which routes have a success and an error checked.
  if (process.env.OPENAPI_COVERAGE) appendFileSync(process.env.OPENAPI_COVERAGE, `${key} ${answer.status}\n`);

  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required) assert.ok(answer.headers.has(name), `${key} ${answer.status} must carry ${name}: ${context}`);
  }
  if (method === 'HEAD') return; // no body to check
  if (!documented.content) return assert.equal(answer.text, '', `${key} ${answer.status} has no body: ${context}`); // 304
  const actualType = mediaTypeOf(answer);
  const mediaType = Object.keys(documented.content ?? {}).find((type) => covers(type, actualType));
  assert.ok(
    mediaType,
    `${key} ${answer.status} answered ${actualType}, the document says ${Object.keys(documented.content ?? {}).join(', ')}: ${context}`,
  );
  if (mediaType !== 'application/json' || !documented.content?.[mediaType]?.schema) return;
  const validate = openApiSchemaAt(
    'paths',
    documentPath,
    operationMethod,
    'responses',
    String(answer.status),
    'content',
    mediaType,
    'schema',
  );
  assert.ok(
    validate(answer.body),
    `${key} ${answer.status} does not match its OpenAPI schema: ${JSON.stringify(validate.errors)}; ${context}`,
  );
}

/** No route: an unknown path (404: JSON under /api, the front end's page elsewhere) or a wrong method (405 with Allow). */
function assertUnrouted(answer: Answer, pathname: string, context: string): void {
  if (answer.status === 405) assert.ok(answer.headers.has('allow'), `405 with Allow: ${context}`);
  if (answer.request?.method === 'HEAD' || (mediaTypeOf(answer) === 'text/html' && !pathname.startsWith('/api/')))
    return;
  assert.equal(mediaTypeOf(answer), 'application/json', context);
  const validate = openApiSchemaAt('components', 'schemas', 'Error');
  assert.ok(validate(answer.body?.error), `an error body: ${JSON.stringify(validate.errors)}; ${context}`);
}
