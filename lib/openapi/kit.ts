import type { ErrorCode } from '../messages.ts';
import { maxGifFrames, maxGifPixels, maxImagePixels } from '../product.ts';

/**
 * The pieces every operation of the OpenAPI document is written with (`handler.doc` beside each
 * handler in lib/api/ and lib/pages/): plain JSON Schema 2020-12 objects (OpenAPI 3.1's dialect),
 * built by a few small functions. docs/API.md "Endpoints" is written from the document they make.
 */

export type JsonSchema = { readonly [keyword: string]: unknown };

export interface FieldSpec {
  readonly description: string;
  readonly schema: JsonSchema;
  readonly required?: boolean;
  readonly file?: boolean;
}

export interface Answer {
  readonly status: number;
  readonly description: string;
  readonly schema?: JsonSchema;
  readonly mediaType?: string;
  readonly empty?: boolean;
}

/** Error codes by status, beside those the route table implies (lib/api/openapi-document.ts impliedErrors). */
export type ErrorTable = Readonly<Partial<Record<400 | 401 | 403 | 404 | 409 | 413 | 429 | 503, readonly ErrorCode[]>>>;

export interface Operation {
  readonly id: string;
  readonly summary: string;
  /** More than the summary says; a citation of a section of docs/API.md in it is a link in docs/API.md's reference. */
  readonly description?: string;
  readonly query?: Readonly<Record<string, FieldSpec>>;
  readonly fields?: Readonly<Record<string, FieldSpec>>;
  readonly ok: Answer;
  readonly more?: readonly Answer[];
  readonly errors?: ErrorTable;
  /**
   * When this endpoint answers an error code, in a few words: its own codes and those the row
   * implies alike (the document refuses a code the endpoint cannot answer).
   */
  readonly when?: Readonly<Partial<Record<ErrorCode, string>>>;
}

export const fileNotModified: Answer = {
  status: 304,
  description: 'If-None-Match or If-Modified-Since: the copy is current (no body)',
  empty: true,
};

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** An object with exactly these members: `required` always there, `optional` only when they have something to say. */
export function object(required: Record<string, JsonSchema>, optional: Record<string, JsonSchema> = {}): JsonSchema {
  const names = Object.keys(required);
  return {
    type: 'object',
    ...(names.length ? { required: names } : {}),
    properties: { ...required, ...optional },
    additionalProperties: false,
  };
}

export const arrayOf = (items: JsonSchema, maxItems?: number): JsonSchema => ({
  type: 'array',
  items,
  ...(maxItems === undefined ? {} : { maxItems }),
});
export const integer = (
  description?: string,
  bounds: { minimum?: number; maximum?: number } = { minimum: 0 },
): JsonSchema => ({ type: 'integer', ...bounds, ...(description ? { description } : {}) });
export const string = (description?: string, more: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  ...more,
  ...(description ? { description } : {}),
});
export const constant = (value: string | number): JsonSchema => ({ const: value });
export const oneOfValues = (...values: (string | number)[]): JsonSchema => ({ enum: values });
/** What a time without more to say is described as; docs/API.md "Conventions" says it for all of them. */
export const unixSeconds = 'Unix seconds';
export const time = (description = unixSeconds): JsonSchema => integer(description);

export const status = (...values: string[]): JsonSchema =>
  object({ status: values.length === 1 ? constant(values[0]!) : oneOfValues(...values) });

export const json = (description: string, schema: JsonSchema, statusCode = 200): Answer => ({
  status: statusCode,
  description,
  schema,
});

export const html = (statusCode: number, description: string): Answer => ({
  status: statusCode,
  description,
  mediaType: 'text/html',
});

export const field = (description: string, schema: JsonSchema = { type: 'string' }, required = false): FieldSpec => ({
  description,
  schema,
  required,
});
export const requiredField = (description: string, schema: JsonSchema = { type: 'string' }): FieldSpec =>
  field(description, schema, true);
export const imageWhen = {
  'upload.bad_type': 'the file is not JPEG, GIF, PNG or WebP by its bytes, or cannot be decoded',
  'upload.too_large': `body over BOARD_MAX_UPLOAD, an image over ${maxImagePixels / 1e6} megapixels, or an animated GIF over ${maxGifFrames} frames or ${maxGifPixels / 1e6} megapixels of frames`,
} as const satisfies Partial<Record<ErrorCode, string>>;

export const imageFile = (description: string, required = false): FieldSpec => ({
  description,
  schema: { type: 'string', contentMediaType: 'application/octet-stream' },
  required,
  file: true,
});
