import type { ErrorCode } from '../messages.ts';
import type { Route } from '../http/route.ts';
import { integer, object, ref, type JsonSchema } from '../openapi/kit.ts';

/**
 * The error answers of the OpenAPI document: the codes the route table implies for a route (so an
 * operation entry lists only its own), and the body schema of one status with its codes.
 */

type Codes = Map<number, Set<ErrorCode>>;

/** What every route of its kind can answer, from the route table's flags and path (docs/API.md "Order of checks"). */
export function impliedErrors(route: Route): Codes {
  const codes: Codes = new Map();
  const add = (status: number, ...more: ErrorCode[]) => {
    const set = codes.get(status) ?? new Set<ErrorCode>();
    for (const code of more) set.add(code);
    codes.set(status, set);
  };
  // Every route: an HTTP/1.1 request without Host, refused before routing (docs/API.md "Errors");
  // also a broken multipart body (POST) and a bad :pid or :page.
  add(400, 'input.invalid');
  if (route.method === 'POST') {
    add(403, 'csrf.bad_origin');
    add(413, 'input.too_large', 'upload.too_large');
    add(415, 'input.unsupported_type');
    add(507, 'server.disk_full');
  }
  if (route.rateLimit || route.writeLimit) add(429, 'rate.limited');
  if (route.auth || route.mod) add(401, 'auth.required');
  if (route.mod) add(403, 'mod.required');
  if (route.federation) add(404, 'api.not_found');
  add(500, 'internal');
  return codes;
}

const extraMembers: Partial<Record<ErrorCode, Record<string, JsonSchema>>> = {
  'entry.bump_cooldown': {
    retry_after: integer('seconds left, equal to Retry-After', { minimum: 1 }),
    bump_count: integer(),
  },
  'auth.banned': { banned_until: integer('-1 permanent, else when the ban ends', { minimum: -1 }) },
  'auth.rejected': { reason: { type: 'string', description: 'the moderator\'s reason, "" when none was given' } },
};

const errorWith = (code: JsonSchema): JsonSchema => ({ type: 'object', allOf: [ref('Error')], properties: { code } });

export function errorBody(codes: readonly ErrorCode[]): JsonSchema {
  const plain = codes.filter((code) => !extraMembers[code]);
  const alternatives: JsonSchema[] = plain.length ? [object({ error: errorWith({ enum: plain }) })] : [];
  for (const code of codes) {
    const extra = extraMembers[code];
    if (extra) alternatives.push(object({ error: errorWith({ const: code }), ...extra }));
  }
  return alternatives.length === 1 ? alternatives[0]! : { oneOf: alternatives };
}

export interface ErrorCase {
  readonly code: ErrorCode;
  readonly when?: string;
}

/**
 * The description of one error status: a Markdown list, a line `` - `code`: when `` per code, so a
 * reader of the document (and docs/API.md "Endpoints", which reads it back with errorCasesOf) sees
 * why each code comes.
 */
export function errorDescription(cases: readonly ErrorCase[]): string {
  return cases.map(({ code, when }) => `- \`${code}\`${when ? `: ${when}` : ''}`).join('\n');
}

/** The cases of an error status's description, as errorDescription wrote them after any lines of its own. */
export function errorCasesOf(description: string): { readonly preamble: string; readonly cases: ErrorCase[] } {
  const lines = description.split('\n');
  const first = lines.findIndex((line) => line.startsWith('- `'));
  const cases = (first < 0 ? [] : lines.slice(first)).map((line) => {
    const [, code, when] = /^- `([^`]+)`(?:: (.*))?$/.exec(line)!;
    return { code: code as ErrorCode, ...(when ? { when } : {}) };
  });
  return { preamble: (first < 0 ? lines : lines.slice(0, first)).join(' '), cases };
}

export const retryAfterStatuses = new Set([429, 503]);
