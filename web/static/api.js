// The board's API: JSON in, German error messages out. Every request shows the busy bar.
import { busy } from './status.js';

/**
 * An answer's JSON as far as the page reads it: the error of a failure, and the wait that some
 * failures add (a bump's 429).
 * @typedef {{ error?: Api.Error, retry_after?: number }} AnswerBody
 */

/** A failed request: `message` is German and ready to show; `field`/`fields` name form fields. */
export class ApiError extends Error {
  /**
   * @param {number} status 0: no answer at all
   * @param {AnswerBody} [body]
   * @param {number} [retryAfter] the answer's Retry-After in seconds; 0 when it had none
   */
  constructor(status, body, retryAfter = 0) {
    /** @type {Partial<Api.Error>} */
    const error = body && typeof body.error === 'object' ? body.error : {};
    super(error.message || fallbackMessage(status));
    this.status = status;
    this.code = error.code || (status === 0 ? 'network' : 'unknown');
    this.field = error.field || '';
    this.fields = error.fields || {};
    this.body = body || {};
    this.retryAfter = retryAfter;
  }
}

/**
 * Retry-After in whole seconds (delay-seconds, or an HTTP date from now); 0 when absent or unreadable.
 * @param {string | null} value
 */
export function retryAfterSeconds(value) {
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** @param {number} status */
function fallbackMessage(status) {
  if (status === 0) return 'Keine Verbindung zum Server. Bitte versuche es gleich noch einmal.';
  if (status === 413) return 'Die Datei ist zu groß.';
  if (status === 429) return 'Zu viele Anfragen. Bitte warte einen Moment.';
  if (status >= 500) return 'Interner Fehler. Bitte versuche es später noch einmal.';
  return `Die Anfrage ist fehlgeschlagen (Status ${status}).`;
}

/**
 * Fired on window when the server answers 401 auth.required: the session is gone (expired, logged
 * out elsewhere, or ended by a ban), and session.js updates the header.
 */
export const sessionEndedEvent = 'board:session-ended';

/**
 * @param {number} status
 * @param {AnswerBody | undefined} data
 */
function noticeSessionEnd(status, data) {
  if (status === 401 && data?.error?.code === 'auth.required') window.dispatchEvent(new Event(sessionEndedEvent));
}

/**
 * The JSON of an answer; undefined when it is none. Typed `any`: the API's answers are described
 * by the OpenAPI document (Api.*), and each caller names the one it gets.
 * @param {string} text
 * @returns {any}
 */
function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {BodyInit} [body]
 * @returns {Promise<any>}
 */
async function request(method, path, body) {
  busy(+1);
  try {
    let res;
    try {
      res = await fetch(path, { method, body, credentials: 'same-origin', headers: { Accept: 'application/json' } });
    } catch {
      throw new ApiError(0);
    }
    const data = parse(await res.text());
    noticeSessionEnd(res.status, data);
    if (!res.ok) throw new ApiError(res.status, data, retryAfterSeconds(res.headers.get('Retry-After')));
    return data;
  } finally {
    busy(-1);
  }
}

/**
 * GET an /api path; resolves to the parsed body.
 * @param {string} path
 * @returns {Promise<any>}
 */
export function get(path) {
  return request('GET', path);
}

/**
 * POST form fields (urlencoded); `fields` is a plain object.
 * @param {string} path
 * @param {Record<string, string>} [fields]
 * @returns {Promise<any>}
 */
export function post(path, fields = {}) {
  return request('POST', path, new URLSearchParams(fields));
}

/**
 * POST multipart form data with upload progress: onProgress(fraction 0…1, or -1 when unknown).
 * XMLHttpRequest, because fetch reports no upload progress.
 * @param {string} path
 * @param {FormData} formData
 * @param {(fraction: number) => void} [onProgress]
 * @returns {Promise<any>}
 */
export function upload(path, formData, onProgress = () => {}) {
  busy(+1);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => onProgress(e.lengthComputable ? e.loaded / e.total : -1));
    xhr.addEventListener('load', () => {
      const data = parse(xhr.responseText);
      noticeSessionEnd(xhr.status, data);
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else reject(new ApiError(xhr.status, data, retryAfterSeconds(xhr.getResponseHeader('Retry-After'))));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0)));
    xhr.addEventListener('abort', () => reject(new ApiError(0)));
    xhr.send(formData);
  }).finally(() => busy(-1));
}
