import assert from 'node:assert/strict';
import type { Answer, RawAnswer } from './client.ts';
import { assertDocumented } from './openapi.ts';

/** Heuristic for "a German sentence": umlauts or common German words. */
const germanWords =
  /[äöüßÄÖÜ]|\b(der|die|das|dies\w*|ist|sind|nicht|bitte|zu|ein\w*|es|gibt|hier|oder|mit|von|noch|dich|Anfrage|Fehler|Format|Feld)\b/;

/** docs/API.md "Errors": the keys an `error` object may have. */
const errorKeys = ['code', 'message', 'field', 'fields'];

export interface ExpectedError {
  /** `error.field` must name this field. */
  field?: string;
  /** Said with a failure, e.g. which input of a loop it was. */
  note?: string;
  /** docs/API.md "Errors" to the letter: nothing in the body beside `error`, and the message is German. */
  exact?: boolean;
}

function contentType(answer: Answer | RawAnswer): string | null | undefined {
  return answer.headers instanceof Headers
    ? answer.headers.get('content-type')
    : String(answer.headers['content-type']);
}

/**
 * Asserts the spec's error answer (docs/API.md "Errors"): the status, JSON, `error.code`, a message, only the
 * spec's keys in `error`, and the field when given (a string is short for `{field}`). An answer of the
 * test Client is also checked against its route's OpenAPI entry (status, code, shape: assertDocumented).
 */
export function assertError(
  answer: Answer | RawAnswer,
  status: number,
  code: string,
  expected: string | ExpectedError = {},
): void {
  const { field, note, exact } =
    typeof expected === 'string' ? { field: expected, note: undefined, exact: false } : expected;
  const context = note === undefined ? answer.text : `${note}: ${answer.text}`;
  assert.equal(answer.status, status, context);
  assert.equal(contentType(answer), 'application/json; charset=utf-8', context);
  const body = 'body' in answer ? answer.body : JSON.parse(answer.text);
  if (exact) assert.deepEqual(Object.keys(body ?? {}), ['error'], `${context}: the body has only "error"`);
  assert.equal(body?.error?.code, code, context);
  assert.equal(typeof body.error.message, 'string', context);
  assert.ok(body.error.message.length > 0, `${context}: message not empty`);
  if (exact) assert.match(body.error.message, germanWords, `${context}: message in German`);
  for (const key of Object.keys(body.error)) assert.ok(errorKeys.includes(key), `${context}: unexpected error.${key}`);
  if (field !== undefined) assert.equal(body.error.field, field, context);
  if ('request' in answer && answer.request) assertDocumented(answer);
}
