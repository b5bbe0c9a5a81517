// The proof-of-work search (docs/API.md "Proof of work"): ALTCHA v2 challenges with PBKDF2/SHA-256,
// through the browser's crypto.subtle. The key of counter n is PBKDF2(password = nonce ‖ n as 4
// bytes big-endian, salt, cost iterations); the answer is the counter whose key starts with
// keyPrefix. Run by static/pow-worker.js; bench/pow-cost.ts runs it on a throttled page.

/** @param {string} hex */
function bytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** @param {Uint8Array} data */
function hex(data) {
  return Array.from(data, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Tries counters start, start + step, … until one fits; onTried(counter) now and then.
 * @param {Api.PowParameters} parameters
 * @param {number} start
 * @param {number} step
 * @param {(counter: number) => void} [onTried]
 * @returns {Promise<{ counter: number, derivedKey: string } | undefined>}
 */
export async function searchCounter(parameters, start, step, onTried = () => {}) {
  const salt = bytes(parameters.salt);
  const nonce = bytes(parameters.nonce);
  const password = new Uint8Array(nonce.length + 4);
  password.set(nonce);
  const view = new DataView(password.buffer);
  for (let counter = start, tried = 0; counter <= 0xffffffff; counter += step, tried++) {
    view.setUint32(nonce.length, counter, false);
    const key = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const bits = await crypto.subtle.deriveBits(
      { name: 'PBKDF2', salt, iterations: parameters.cost, hash: 'SHA-256' },
      key,
      parameters.keyLength * 8,
    );
    const derivedKey = hex(new Uint8Array(bits));
    if (derivedKey.startsWith(parameters.keyPrefix)) return { counter, derivedKey };
    if (tried % 20 === 0) onTried(counter);
  }
  return undefined;
}
