import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { requestMessages, uploadLimitMessages } from '../messages.ts';
import { ApiError } from '../errors.ts';

export interface UploadedFile {
  filename: string;
  data: Buffer;
}

export interface Form {
  fields: Map<string, string>;
  files: Map<string, UploadedFile>;
}

export interface BodyLimits {
  maxMultipart: number;
  maxUrlencoded: number;
}

const emptyForm = (): Form => ({ fields: new Map(), files: new Map() });

/**
 * Reads a urlencoded or multipart body. An empty body is an empty form whatever its type;
 * anything else is 415. Oversized bodies answer 413 as soon as the limit is passed.
 */
export async function readForm(req: IncomingMessage, limits: BodyLimits): Promise<Form> {
  if (!hasBody(req)) return emptyForm();
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return readUrlencoded(req, limits.maxUrlencoded);
  if (type === 'multipart/form-data') return readMultipart(req, limits.maxMultipart);
  throw new ApiError(415, 'input.unsupported_type');
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

function declaredTooLarge(req: IncomingMessage, max: number): boolean {
  return Number(req.headers['content-length'] ?? 0) > max;
}

async function readUrlencoded(req: IncomingMessage, max: number): Promise<Form> {
  if (declaredTooLarge(req, max)) throw new ApiError(413, 'input.too_large');
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw new ApiError(413, 'input.too_large');
      chunks.push(chunk);
    }
  } catch (err) {
    // A client that hangs up mid-body is not a server failure (multipart answers the same).
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, 'input.invalid', { message: requestMessages.aborted });
  }
  const form = emptyForm();
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    if (!form.fields.has(name)) form.fields.set(name, value);
  }
  return form;
}

function readMultipart(req: IncomingMessage, max: number): Promise<Form> {
  const tooLarge = () => new ApiError(413, 'upload.too_large', { message: uploadLimitMessages.size(max) });
  if (declaredTooLarge(req, max)) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const form = emptyForm();
    let received = 0;
    let failed = false;
    const fail = (err: ApiError) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      parser.destroy();
      reject(err);
    };

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: max, fieldSize: 64 * 1024, fields: 50, files: 5, parts: 60, headerPairs: 50 },
        defParamCharset: 'utf8',
      });
    } catch {
      reject(new ApiError(400, 'input.invalid', { message: requestMessages.badFormData }));
      return;
    }

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError(413, 'input.too_large'));
      if (!form.fields.has(name)) form.fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge()));
      // busboy destroys an unfinished file stream with an error (a body cut off inside the file,
      // an aborted upload, or our own fail()); unheard, that error would end the whole process.
      stream.on('error', () => fail(new ApiError(400, 'input.invalid', { message: requestMessages.badFormData })));
      stream.on('end', () => {
        const data = Buffer.concat(chunks);
        // A browser sends an empty part with no filename when no file was chosen: that is no file.
        if (data.length === 0 && !info.filename) return;
        if (!form.files.has(name)) form.files.set(name, { filename: info.filename ?? '', data });
      });
    });
    parser.on('partsLimit', () => fail(new ApiError(413, 'input.too_large')));
    parser.on('filesLimit', () => fail(new ApiError(413, 'input.too_large')));
    parser.on('fieldsLimit', () => fail(new ApiError(413, 'input.too_large')));
    parser.on('error', () => fail(new ApiError(400, 'input.invalid', { message: requestMessages.badFormData })));
    parser.on('close', () => {
      if (!failed) resolve(form);
    });

    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > max) fail(tooLarge());
    });
    req.on('aborted', () => fail(new ApiError(400, 'input.invalid', { message: requestMessages.aborted })));
    req.pipe(parser);
  });
}
