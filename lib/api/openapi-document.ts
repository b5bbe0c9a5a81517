import { maxFeedPage } from '../product.ts';
import { createRequire } from 'node:module';
import type { ErrorCode } from '../messages.ts';
import type { Route } from '../http/route.ts';
import { schemas } from '../openapi/components.ts';
import { errorBody, errorDescription, impliedErrors, retryAfterStatuses } from './openapi-errors.ts';
import { integer, string, type Answer, type FieldSpec, type JsonSchema, type Operation } from '../openapi/kit.ts';
import type { Tag } from '../openapi/tags.ts';

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document of every row of the route table (lib/routes.ts),
 * built from the rows alone: paths, methods and the errors the row's flags imply, the tag of its
 * group, and the operation its endpoint carries beside its handler (`handler.doc`: fields,
 * answers, its own errors).
 */

export const routeKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method} ${route.path}`;

export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');

/** Every path parameter of the route table, described once (test/api/openapi.test.ts names any left out). */
export const pathParameters: Record<string, { description: string; schema: JsonSchema }> = {
  pid: { description: 'entry id: decimal digits, at most 15 (else 400 input.invalid)', schema: integer() },
  page: {
    description: `page number, 0–${maxFeedPage} (else 400 input.invalid)`,
    schema: integer(undefined, { minimum: 0, maximum: maxFeedPage }),
  },
  identifier: {
    description: 'an actor: `board` for the Group, else the uid of a public account',
    schema: string(),
  },
  username: {
    description: 'a username, percent-encoded; matched like a login (any letter case, spaces normalised)',
    schema: string(),
  },
  id: {
    description:
      'a session id from GET /api/user/sessions or a passkey id from GET /api/user/passkeys (32 hex digits), or an invite id from GET /api/user/invites',
    schema: string(undefined, { pattern: '^([0-9a-f]{32}|[0-9]{1,15})$' }),
  },
  path: { description: "the file's path below the folder; may hold slashes", schema: string() },
  version: {
    description: "the front end's version the page names (16 hex digits); any other answers today's file, not kept",
    schema: string(),
  },
  token: {
    description:
      "the private feed's secret token followed by .atom (POST /api/user/feed-token gives the whole address)",
    schema: string(undefined, { pattern: '^[A-Za-z0-9_-]+\\.atom$' }),
  },
  file: {
    description: 'a file of the sitemap index: {n}.xml, n from 1',
    schema: string(undefined, { pattern: '^[1-9][0-9]{0,5}\\.xml$' }),
  },
};

const { version, license } = createRequire(import.meta.url)('../../package.json') as {
  version: string;
  license: string;
};

export function buildOpenApiDocument(routes: readonly Route[], origin: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<Tag>();
  for (const route of routes) {
    tags.add(route.tag);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operationObject(route, route.handler.doc);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'The board',
      version,
      description: [
        'A public discussion board. Every choice the specification left open is in docs/API.md.',
        'POST bodies are forms: application/x-www-form-urlencoded or multipart/form-data (files only in multipart).',
        'Every /api answer is JSON, errors too: `{"error": {"code", "message" (German), "field"?, "fields"?}}`.',
        'A known path with another method answers 405 api.method_not_allowed with Allow; an unknown /api path 404 api.not_found; HEAD is answered wherever GET is.',
        'A non-GET request with a foreign Origin header answers 403 csrf.bad_origin. The session is the cookie `session` that login sets.',
      ].join('\n\n'),
      // npm's UNLICENSED (no licence is granted) is on no SPDX list: it becomes the SPDX expression for
      // a licence stated elsewhere (LicenseRef-, here package.json); any other value is an SPDX expression.
      license: { name: license, identifier: license === 'UNLICENSED' ? `LicenseRef-${license}` : license },
    },
    servers: [{ url: origin }],
    // Needs a session unless an operation says otherwise: every public one says `security: []`.
    security: [{ session: [] }],
    tags: [...tags].map(({ name, description }) => ({ name, description })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'session',
          description: 'set by POST /api/auth/login and POST /api/auth/reset',
        },
      },
    },
  };
}

function operationObject(route: Route, operation: Operation) {
  const notes = [
    operation.description,
    route.mod ? 'Moderators only.' : route.auth ? 'Needs a session.' : undefined,
    route.rateLimit ? `Rate limit \`${route.rateLimit}\` per address (docs/API.md "Rate limits").` : undefined,
    route.writeLimit ? `Write limit \`${route.writeLimit}\` (docs/API.md "Rate limits").` : undefined,
    route.shared
      ? 'A shared cache may keep its 200 for requests without a session cookie (docs/API.md "Shared caches: Cache-Control").'
      : undefined,
  ].filter(Boolean);
  return {
    operationId: operation.id,
    summary: operation.summary,
    ...(notes.length ? { description: notes.join(' ') } : {}),
    tags: [route.tag.name],
    security: route.auth || route.mod ? [{ session: [] }] : [],
    ...parametersOf(route, operation),
    ...(operation.fields ? { requestBody: requestBodyOf(operation.fields) } : {}),
    responses: responsesOf(route, operation),
  };
}

function parametersOf(route: Route, operation: Operation) {
  const names = [...route.path.matchAll(/:(\w+)|\*$/g)].map((m) => m[1] ?? 'path');
  const parameters: unknown[] = names.map((name) => ({
    name,
    in: 'path',
    required: true,
    ...(pathParameters[name] ?? { schema: string() }),
  }));
  for (const [name, spec] of Object.entries(operation.query ?? {})) {
    parameters.push({
      name,
      in: 'query',
      required: spec.required === true,
      description: spec.description,
      schema: spec.schema,
    });
  }
  return parameters.length ? { parameters } : {};
}

function requestBodyOf(fields: Readonly<Record<string, FieldSpec>>) {
  const form = (withFiles: boolean) => {
    const chosen = Object.entries(fields).filter(([, spec]) => withFiles || !spec.file);
    const required = chosen.filter(([, spec]) => spec.required).map(([name]) => name);
    return {
      schema: {
        type: 'object',
        properties: Object.fromEntries(
          chosen.map(([name, spec]) => [name, { ...spec.schema, description: spec.description }]),
        ),
        ...(required.length ? { required } : {}),
      },
    };
  };
  return { content: { 'application/x-www-form-urlencoded': form(false), 'multipart/form-data': form(true) } };
}

function responsesOf(route: Route, operation: Operation) {
  const responses: Record<string, unknown> = {};
  for (const answer of [operation.ok, ...(operation.more ?? [])]) responses[answer.status] = answerObject(answer);
  const codes = impliedErrors(route);
  for (const [status, more] of Object.entries(operation.errors ?? {}) as [string, readonly ErrorCode[]][]) {
    const set = codes.get(Number(status)) ?? new Set<ErrorCode>();
    for (const code of more) set.add(code);
    codes.set(Number(status), set);
  }
  const when = { ...operation.when };
  for (const [status, set] of [...codes].sort(([a], [b]) => a - b)) {
    const list = [...set];
    const cases = errorDescription(
      list.map((code) => {
        const text = when[code];
        delete when[code];
        if (text?.includes('\n')) throw new Error(`${routeKey(route)}: when of ${code} must be one line`);
        return { code, ...(text ? { when: text } : {}) };
      }),
    );
    // A page that answers this status itself in HTML (/suche's 400) keeps that answer beside the JSON error.
    const own = responses[status] as { description: string; content?: Record<string, unknown> } | undefined;
    responses[status] = {
      description: own ? `${own.description}\n${cases}` : cases,
      ...(retryAfterStatuses.has(status)
        ? {
            headers: {
              'Retry-After': {
                description: 'seconds to wait',
                required: true,
                schema: integer(undefined, { minimum: 1 }),
              },
            },
          }
        : {}),
      content: { ...own?.content, 'application/json': { schema: errorBody(list) } },
    };
  }
  const stray = Object.keys(when);
  if (stray.length) throw new Error(`${routeKey(route)}: when names codes it never answers: ${stray.join(', ')}`);
  return responses;
}

function answerObject(answer: Answer) {
  if (answer.empty) return { description: answer.description };
  const mediaType = answer.mediaType ?? 'application/json';
  return { description: answer.description, content: { [mediaType]: answer.schema ? { schema: answer.schema } : {} } };
}
