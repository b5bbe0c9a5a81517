// The board's API: JSON in, German error messages out. Every request shows the busy bar.
import { busy } from './status.js';

/** A failed request: `message` is German and ready to show; `field`/`fields` name form fields. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = body && typeof body.error === 'object' ? body.error : {};
    super(error.message || fallbackMessage(status));
    this.status = status;
    this.code = error.code || (status === 0 ? 'network' : 'unknown');
    this.field = error.field || '';
    this.fields = error.fields || {};
    this.body = body || {};
  }
}

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

function noticeSessionEnd(status, data) {
  if (status === 401 && data?.error?.code === 'auth.required') window.dispatchEvent(new Event(sessionEndedEvent));
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

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
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  } finally {
    busy(-1);
  }
}

/** GET an /api path; resolves to the parsed body. */
export function get(path) {
  return request('GET', path);
}

/** POST form fields (urlencoded); `fields` is a plain object. */
export function post(path, fields = {}) {
  return request('POST', path, new URLSearchParams(fields));
}

/**
 * POST multipart form data with upload progress: onProgress(fraction 0…1, or -1 when unknown).
 * XMLHttpRequest, because fetch reports no upload progress.
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
      else reject(new ApiError(xhr.status, data));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0)));
    xhr.addEventListener('abort', () => reject(new ApiError(0)));
    xhr.send(formData);
  }).finally(() => busy(-1));
}
