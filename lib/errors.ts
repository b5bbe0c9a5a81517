import { messages, type ErrorCode } from './messages.ts';

export interface ErrorOptions {
  field?: string;
  fields?: Record<string, string>;
  message?: string;
  headers?: Record<string, string>;
  /** Extra top-level members of the body, next to `error` (bump: retry_after, bump_count). */
  extra?: Record<string, unknown>;
  /** The limit that refused the request, as `<kind>/<group>` (`rate/login`): counted in the metrics. */
  limit?: `${'rate' | 'write' | 'brake' | 'federation'}/${string}`;
}

/**
 * The one error a handler throws; the pipeline turns it into the body of docs/API.md "Errors". It
 * carries no stack: it is an answer, never logged, and a flood of refusals should not pay for
 * capturing one each.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly options: ErrorOptions;
  constructor(status: number, code: ErrorCode, options: ErrorOptions = {}) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(code);
    Error.stackTraceLimit = limit;
    this.status = status;
    this.code = code;
    this.options = options;
  }

  body(): Record<string, unknown> {
    const error: Record<string, unknown> = { code: this.code, message: this.options.message ?? messages[this.code] };
    if (this.options.field) error.field = this.options.field;
    if (this.options.fields) error.fields = this.options.fields;
    return { error, ...this.options.extra };
  }
}

export function invalidField(field: string, message?: string): ApiError {
  return new ApiError(400, 'input.invalid', { field, message });
}
