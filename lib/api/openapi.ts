import type { Ctx } from '../http/context.ts';
import type { Route } from '../http/route.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';

/** The serialised document per origin: the route table changes only with a deploy, which restarts the server. */
const documents = new Map<string, Buffer>();

/** GET /api/openapi.json: the OpenAPI 3.1 document of every route of `routes` (the table, lib/routes.ts, hands itself in). */
export function openApiDocument(ctx: Ctx, routes: readonly Route[]): Buffer {
  const { origin } = ctx.app.config;
  let document = documents.get(origin);
  if (!document) {
    document = Buffer.from(JSON.stringify(buildOpenApiDocument(routes, origin)));
    documents.set(origin, document);
  }
  return document;
}
