import type { Ctx } from '../http/context.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';

/** The serialised document per origin: the route table changes only with a deploy, which restarts the server. */
const documents = new Map<string, Buffer>();

/** GET /api/openapi.json: the OpenAPI 3.1 document of every route (lib/openapi/). */
export async function openApiDocument(ctx: Ctx): Promise<Buffer> {
  const { origin } = ctx.app.config;
  let document = documents.get(origin);
  if (!document) {
    // Loaded here, not imported at the top: lib/routes.ts imports this handler.
    const { routes } = await import('../routes.ts');
    document = Buffer.from(JSON.stringify(buildOpenApiDocument(routes, origin)));
    documents.set(origin, document);
  }
  return document;
}
