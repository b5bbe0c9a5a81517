// Proof of work for the forms that need it (docs/API.md "Proof of work"): fetches a challenge,
// solves it in Web Workers from the board's own origin (static/pow-worker.js), and returns the
// `altcha` field: base64 of JSON {challenge, solution}, as ALTCHA's own widget sends it.
import * as api from './api.js';

/** Workers at most: a phone's cores share the work; more would only heat it. */
const maxWorkers = 4;

/**
 * Solves a fresh challenge; onProgress(fraction 0…1) as the counters go by.
 * @param {(fraction: number) => void} [onProgress]
 * @returns {Promise<string>}
 */
export async function solveChallenge(onProgress = () => {}) {
  /** @type {Api.PowChallenge} */
  const challenge = await api.get('/api/auth/challenge');
  const { parameters } = challenge;
  const step = Math.max(1, Math.min(maxWorkers, navigator.hardwareConcurrency || 2));
  const workers = Array.from({ length: step }, () => new Worker('/static/pow-worker.js', { type: 'module' }));
  const max = Number(parameters.data?.max) || 1;
  try {
    /** @type {{ counter: number, derivedKey: string }} */
    const solution = await new Promise((resolve, reject) => {
      workers.forEach((worker, start) => {
        worker.onerror = () => reject(new Error('pow worker failed'));
        worker.onmessage = ({ data }) => {
          if (data.derivedKey) resolve(data);
          else if (data.failed) reject(new Error('no solution'));
          else onProgress(Math.min(0.99, data.tried / max));
        };
        worker.postMessage({ parameters, start, step });
      });
    });
    onProgress(1);
    return btoa(
      JSON.stringify({ challenge, solution: { counter: solution.counter, derivedKey: solution.derivedKey } }),
    );
  } finally {
    for (const worker of workers) worker.terminate();
  }
}

/**
 * Sends a request; when the board answers 400 pow.invalid (a login for a name under attack, an
 * anonymous report with BOARD_POW on), solves a challenge and sends it once more with `altcha`.
 * @template T
 * @param {(altcha?: string) => Promise<T>} send
 * @param {(fraction: number) => void} [onProgress]
 * @returns {Promise<T>}
 */
export async function withProofOfWork(send, onProgress) {
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof api.ApiError) || err.code !== 'pow.invalid') throw err;
    return send(await solveChallenge(onProgress));
  }
}
