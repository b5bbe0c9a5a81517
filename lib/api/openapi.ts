import type { Ctx } from '../http/context.ts';
import type { Endpoint, Route } from '../http/route.ts';
import { buildOpenApiDocument } from './openapi-document.ts';
import { constant, json, type Operation } from '../openapi/kit.ts';

const doc: Operation = {
  id: 'openapi',
  summary: 'This document: OpenAPI 3.1 of every route',
  description:
    'An addition to the specification, for API clients and code generators; what it holds and how it is kept true: docs/API.md "The OpenAPI document".',
  ok: json('the document', {
    type: 'object',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: constant('3.1.0'), info: { type: 'object' }, paths: { type: 'object' } },
  }),
};

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document of every row of the table `routesOf` gives
 * (lib/routes.ts hands itself in), serialised once per origin: the table changes only with a
 * deploy, which restarts the server.
 */
export function openApi(routesOf: () => readonly Route[]): Endpoint {
  const documents = new Map<string, Buffer>();
  const openApiDocument = (ctx: Ctx): Buffer => {
    const { origin } = ctx.app.config;
    let document = documents.get(origin);
    if (!document) {
      document = Buffer.from(JSON.stringify(buildOpenApiDocument(routesOf(), origin)));
      documents.set(origin, document);
    }
    return document;
  };
  return Object.assign(openApiDocument, { doc });
}
