// The proof-of-work solver (docs/API.md "Proof of work"), run as a Web Worker from the board's own
// origin: ALTCHA v2 challenges with PBKDF2/SHA-256, through the browser's crypto.subtle. The key of
// counter n is PBKDF2(password = nonce ‖ n as 4 bytes big-endian, salt, cost iterations); the
// answer is the counter whose key starts with keyPrefix. Workers split the counters: start, step.

/** The worker's side of postMessage, without the WebWorker type library. */
const scope =
  /** @type {{ onmessage: ((event: MessageEvent) => void) | null, postMessage(message: unknown): void }} */ (
    /** @type {unknown} */ (self)
  );

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

/** How often a worker reports how far it got. */
const reportEvery = 20;

/** @param {MessageEvent} event */
scope.onmessage = async (event) => {
  /** @type {{ parameters: Api.PowParameters, start: number, step: number }} */
  const { parameters, start, step } = event.data;
  const salt = bytes(parameters.salt);
  const nonce = bytes(parameters.nonce);
  const password = new Uint8Array(nonce.length + 4);
  password.set(nonce);
  const view = new DataView(password.buffer);
  for (let counter = start, tried = 0; counter <= 0xffffffff; counter += step, tried++) {
    view.setUint32(nonce.length, counter, false);
    const key = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const derived = hex(
      new Uint8Array(
        await crypto.subtle.deriveBits(
          { name: 'PBKDF2', salt, iterations: parameters.cost, hash: 'SHA-256' },
          key,
          parameters.keyLength * 8,
        ),
      ),
    );
    if (derived.startsWith(parameters.keyPrefix)) {
      scope.postMessage({ counter, derivedKey: derived });
      return;
    }
    if (tried % reportEvery === 0) scope.postMessage({ tried: counter });
  }
  scope.postMessage({ failed: true });
};
